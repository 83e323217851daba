#!/usr/bin/env python3
"""The layering the SDK promises, checked on the source tree (issue 30's greps, as a test):
  - no plugin (plugins/) and no backend (backends/) includes an engine-only header, i.e. any
    header under engine/internal/ (zkpipe/config.h, plugin.h, memory.h, system.h, log.h,
    proof_type.h, pipeline/...);
  - engine/pipeline/ names no zkp_ identifier (it talks to plugins through the adapters in
    engine/plugin/ and engine/memory/, never through the C ABI);
  - no in-tree plugin includes an SDK header by a bare name ("proof_type_plugin.h"): they
    include "zkpipe/sdk/..." exactly as out-of-tree plugins do.
Usage: check_layers.py [REPO_ROOT]; exits 1 listing file:line: what, for every breach."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2])
internal = root / "engine" / "internal"
engine_only = {str(p.relative_to(internal)) for p in internal.rglob("*.h")}
sdk_names = {p.name for p in (root / "engine/include/zkpipe/sdk").glob("*.h")}
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
sources = ("*.h", "*.cpp", "*.cu", "*.cuh")
problems = []


def files(folder):
    for pattern in sources:
        yield from sorted((root / folder).rglob(pattern))


for folder in ("plugins", "backends"):
    for f in files(folder):
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = include.match(line)
            if not m:
                continue
            name = m.group(1)
            if name in engine_only:
                problems.append(f"{f.relative_to(root)}:{n}: includes engine-only {name}")
            elif "/" not in name and name in sdk_names and not (f.parent / name).exists():
                problems.append(f"{f.relative_to(root)}:{n}: includes SDK header {name} by a "
                                f"bare name (write \"zkpipe/sdk/{name}\")")

for f in files("engine/pipeline"):
    for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
        if re.search(r"\bzkp_\w+", line):
            problems.append(f"{f.relative_to(root)}:{n}: names a C ABI identifier: {line.strip()}")

for p in problems:
    print(p)
print(f"check_layers: {len(engine_only)} engine-only headers, {len(problems)} problems")
sys.exit(1 if problems else 0)
