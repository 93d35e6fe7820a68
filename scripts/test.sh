#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run every test (GoogleTest and pytest, via ctest).
# CUDA tests skip, saying so, on machines without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j2
