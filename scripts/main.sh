#!/usr/bin/env bash
# Quick start, command 1: set up, generate, build, and run the main job: examples/example.cpp
# (C++), then examples/example.py (the same network trained from Python).
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the two programs need: the library, the example and the Python extension (the
# test command builds the rest).
scripts/setup.sh opcore_example opcore_python
./build/opcore_example
echo
/usr/bin/python3 examples/example.py
