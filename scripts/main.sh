#!/usr/bin/env bash
# Quick start, command 1: set up, generate, build, and run the main job (examples/example.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
./build/opcore_example
