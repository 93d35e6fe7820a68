#!/usr/bin/env bash
# Set-up shared by the two quick-start commands: installs the Debian packages opcore needs
# (only those missing), then configures build/ and builds the given targets with Ninja.
# Usage: scripts/setup.sh [TARGET...]  (no target: everything, tests included; idempotent, a
#        second run rebuilds only what changed)
#        scripts/setup.sh --packages-only  (the packages alone: scripts/test.sh installs its own
#        beside the build)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ python3 python3-dev python3-jinja2 python3-yaml python3-pytest python3-numpy
          libgtest-dev libgmock-dev libbenchmark-dev libopenblas-openmp-dev libsleef-dev libdnnl-dev mypy
          python3-sklearn)  # python3-sklearn: the handwritten digits of examples/digits.*
scripts/install_packages.sh "${packages[@]}"
if [ "${1:-}" = --packages-only ]; then exit 0; fi

if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build ${1:+--target "$@"}

# `import opcore` from any directory: a .pth file in the user's site-packages names this
# checkout's build/python (the package and the compiled opcore._C; see docs/python.md).
site_dir="$(/usr/bin/python3 -m site --user-site)"
mkdir -p "$site_dir"
echo "$PWD/build/python" > "$site_dir/opcore.pth"
