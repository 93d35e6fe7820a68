#!/usr/bin/env bash
# Quick start, command 1: set up, generate, build, and run the main job: examples/example.cpp
# (C++), then examples/example.py (the same network trained from Python); then the two
# showcase models, each from C++ and from Python: examples/charlm.* (a character-level
# transformer) and examples/digits.* (a convolutional network on handwritten digits).
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the programs need: the library, the examples and the Python extension (the test
# command builds the rest).
scripts/setup.sh opcore_example opcore_charlm opcore_digits opcore_python
./build/opcore_example
echo
/usr/bin/python3 examples/example.py
for model in charlm digits; do
  echo
  ./build/opcore_$model
  echo
  /usr/bin/python3 examples/$model.py
done
