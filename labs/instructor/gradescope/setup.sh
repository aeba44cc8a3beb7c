#!/usr/bin/env bash
# Gradescope builds the autograder's image with this (as root, with a network): Python 3.11
# or newer and mcastlab in a virtual environment; neither Mininet, Open vSwitch nor MPICH's
# programs (judging against a key uses none of them). The checkout is in the zip as
# mcastlab/ (git archive --format=tar HEAD | tar -x -C mcastlab).
set -eu
apt-get update
apt-get install -y --no-install-recommends python3 python3-venv python3-pip
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "mcastlab needs Python 3.11 or newer: choose a newer base image" >&2; exit 1; }
python3 -m venv /opt/mcastlab
/opt/mcastlab/bin/pip install /autograder/source/mcastlab
ln -sf /opt/mcastlab/bin/mcastlab /usr/local/bin/mcastlab
