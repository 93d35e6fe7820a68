#!/usr/bin/env bash
# Quick start, command 1: set up, generate, build, and run the main job: examples/example.cpp
# (C++), then examples/example.py (the same network trained from Python).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
./build/opcore_example
echo
/usr/bin/python3 examples/example.py
