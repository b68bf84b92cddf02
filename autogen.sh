#!/bin/sh
# Bootstrap a git checkout: generate configure and Makefile.in.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
autoreconf -fi
