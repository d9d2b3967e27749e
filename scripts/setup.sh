#!/usr/bin/env bash
# Installs everything Sawt needs on a fresh Debian/Ubuntu machine: system
# packages (espeak-ng, HTS engine, KISS FFT, libsoxr, build tools, SQLite, ffmpeg), npm packages, the native
# engine addon and the TypeScript build. Safe to run again: each step skips
# what is already done, and compilers reuse their caches (ccache, npm cache).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SYSTEM_PACKAGES=(
  ca-certificates debian-archive-keyring pkg-config g++ make cmake ninja-build ccache python3
  libespeak-ng-dev espeak-ng-data libhtsengine-dev libkissfft-dev libsoxr-dev libsqlite3-dev ffmpeg clang-format cpplint
)

source scripts/apt-packages.sh
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then SYSTEM_PACKAGES+=(nodejs npm); fi
ensure_packages "${SYSTEM_PACKAGES[@]}"
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "setup: Sawt needs Node.js 20 or newer; this system's package manager provides $(node --version 2>/dev/null || echo none)." >&2
  exit 1
fi

export CMAKE_CXX_COMPILER_LAUNCHER=ccache
# Settings for dependencies' install scripts, each in the variable its own tool
# reads (npm warns about unknown .npmrc keys and npm_config_* variables):
# onnxruntime-node downloads nothing (its CPU binaries ship in the package);
# sqlite3 builds from source (.prebuild-installrc) against the system
# libsqlite3 (the gyp variable sqlite), with no download from GitHub.
export ONNXRUNTIME_NODE_INSTALL=skip
export GYP_DEFINES="sqlite=/usr${GYP_DEFINES:+ $GYP_DEFINES}"
export SCARF_ANALYTICS=false
# npm ci: exact lockfile versions; runs sqlite3's build and the root install
# script (the native addon).
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.sawt-lock 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.sawt-lock
elif [ ! -f native/build/Release/sawt_native.node ]; then
  npm run --silent build:native
fi
npm run --silent build
echo "setup: done"
