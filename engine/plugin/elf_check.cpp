// Checks a plugin file is a complete ELF shared object for this machine before dlopen sees it,
// so a text file or a truncated copy is rejected with the byte offset instead of a loader
// crash or a vague message. Thread-safety: pure function (reads the file).
#include <elf.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "zkpipe/plugin.h"

namespace zkpipe {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#else
#error "zkpipe: unknown host machine for the ELF check"
#endif

Status truncated(const std::string& path, const char* what, uint64_t end, uint64_t size) {
  return invalid_argument(path + ": truncated or corrupt shared library: " + what +
                          " ends at byte " + std::to_string(end) + " but the file has " +
                          std::to_string(size) + " bytes");
}

}  // namespace

Status check_elf_file(const std::string& path) {
  ZKP_RETURN_IF_ERROR(check_regular_file(path, "plugin library"));
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return not_found(path + ": cannot open plugin library: " + std::strerror(errno));
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  Elf64_Ehdr eh{};
  if (size < 4)
    return invalid_argument(path + ": not a shared library: file has only " + std::to_string(size) +
                            " bytes");
  in.read(reinterpret_cast<char*>(&eh),
          static_cast<std::streamsize>(std::min<uint64_t>(size, sizeof eh)));
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    return invalid_argument(path +
                            ": not a shared library: bytes 0-3 are not the ELF magic 7f 45 4c 46");
  }
  if (size < sizeof eh) return truncated(path, "the ELF header", sizeof eh, size);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    return invalid_argument(path + ": not a 64-bit little-endian ELF file (byte 4 = " +
                            std::to_string(eh.e_ident[EI_CLASS]) +
                            ", byte 5 = " + std::to_string(eh.e_ident[EI_DATA]) + ")");
  }
  if (eh.e_type != ET_DYN) {
    return invalid_argument(path + ": not a shared library: ELF type at byte 16 is " +
                            std::to_string(eh.e_type) + ", expected ET_DYN (3)");
  }
  if (eh.e_machine != kHostMachine) {
    return invalid_argument(path + ": built for another machine: ELF machine at byte 18 is " +
                            std::to_string(eh.e_machine) + ", this machine is " +
                            std::to_string(kHostMachine));
  }
  const uint64_t ph_end = eh.e_phoff + uint64_t{eh.e_phnum} * eh.e_phentsize;
  if (ph_end > size) return truncated(path, "the program header table", ph_end, size);
  const uint64_t sh_end = eh.e_shoff + uint64_t{eh.e_shnum} * eh.e_shentsize;
  if (eh.e_shoff != 0 && sh_end > size)
    return truncated(path, "the section header table", sh_end, size);
  if (eh.e_phentsize != sizeof(Elf64_Phdr)) {
    return invalid_argument(path + ": corrupt ELF header: program header entry size " +
                            std::to_string(eh.e_phentsize) + " at byte 54");
  }
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  in.seekg(static_cast<std::streamoff>(eh.e_phoff));
  in.read(reinterpret_cast<char*>(ph.data()),
          static_cast<std::streamsize>(ph.size() * sizeof(Elf64_Phdr)));
  for (size_t i = 0; i < ph.size(); ++i) {
    if (ph[i].p_type != PT_LOAD && ph[i].p_type != PT_DYNAMIC) continue;
    const uint64_t end = ph[i].p_offset + ph[i].p_filesz;
    if (end > size) {
      return truncated(path, ("segment " + std::to_string(i)).c_str(), end, size);
    }
  }
  return ok_status();
}

}  // namespace zkpipe
