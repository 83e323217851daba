// zkpipe-tool proof-type TYPE ARGS...: runs a proof-type plugin's own command line (ABI 1.3
// `command`), e.g. making its vanilla proofs from sealed sectors, so that a proof type written
// out of tree brings its tools with it and neither this tool nor the engine names it. The
// plugin is found in the plugin directories (--plugin-dir, else the default beside the tool) and
// initialized as the engine would; everything after TYPE is the plugin's, and its exit code is
// this tool's.
#include "commands.h"
#include "zkpipe/plugin.h"
#include "zkpipe/proof_type.h"

namespace zkpipe::tool {
namespace {

struct ProofTypeCommandOptions {
  std::vector<std::string> plugin_dirs;
  std::string type;
  std::vector<std::string> args;
};

int run(const ProofTypeCommandOptions& o) {
  auto fail = [](const Status& s) {
    fmt::print(stderr, "proof-type: {}\n", s.to_string());
    return s.code() == Code::kInternal ? 1 : 2;
  };
  Result<std::vector<std::string>> dirs = plugin_search_dirs({{"--plugin-dir", o.plugin_dirs}});
  if (!dirs.ok()) return fail(dirs.status());
  PluginRegistry registry(*dirs);
  Result<ProofTypePlugin> type = ProofTypePlugin::load(registry, o.type);
  if (!type.ok()) return fail(type.status());
  Result<int> rc = type->run_command(o.args);
  if (!rc.ok()) return fail(rc.status());
  return *rc;
}

}  // namespace

void add_proof_type_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ProofTypeCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "proof-type",
      "Run a proof type's own commands (e.g. `proof-type T vanilla ...`; `proof-type T help`)");
  cmd->add_option("--plugin-dir", o->plugin_dirs,
                  "plugin directory (repeat; default: beside the tool)")
      ->allow_extra_args(false);
  cmd->add_option("type", o->type, "the proof type (a plugin name)")->required();
  // Everything after the type goes to the plugin untouched, its --help included.
  cmd->prefix_command();
  cmd->callback([o, cmd, exit_code] {
    o->args = cmd->remaining();
    *exit_code = guarded("proof-type", [&] { return run(*o); });
  });
}

}  // namespace zkpipe::tool
