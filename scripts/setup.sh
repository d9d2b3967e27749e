#!/usr/bin/env bash
# Installs everything Sawt needs on a fresh Debian/Ubuntu machine: system
# packages (espeak-ng, HTS engine, KISS FFT, libsoxr, build tools, SQLite, ffmpeg), npm packages, the native
# engine addon and the TypeScript build. Safe to run again: each step skips
# what is already done, and compilers reuse their caches (ccache, npm cache).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Node 24 for this project only, in .node/ (git-ignored): the npm registry's node-linux-<arch>
# package (Node's official Linux build, with its headers), checked against the integrity below.
install_project_node() {
  local arch pkg integrity tmp got
  case "$(uname -m)" in
    x86_64) arch=x64 integrity=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q== ;;
    aarch64) arch=arm64 integrity=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g== ;;
    *) echo "setup: Sawt needs Node.js $SAWT_NODE_MIN_MAJOR or newer; install it for $(uname -m) and run setup again." >&2; exit 1 ;;
  esac
  pkg="node-linux-$arch@$SAWT_NODE_VERSION"
  echo "setup: this machine's Node.js is $(node --version 2>/dev/null || echo absent); installing Node.js $SAWT_NODE_VERSION into .node/ ($pkg from the npm registry)"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
  got=$(node -e 'const f = require("fs").readFileSync(process.argv[1]); console.log("sha512-" + require("crypto").createHash("sha512").update(f).digest("base64"))' "$tmp"/node-linux-*.tgz)
  if [ "$got" != "$integrity" ]; then
    echo "setup: $pkg does not match its pinned integrity ($got)" >&2; rm -rf "$tmp"; exit 1
  fi
  tar -xzf "$tmp"/node-linux-*.tgz -C "$tmp"
  rm -rf "$SAWT_NODE_DIR"
  mv "$tmp/package" "$SAWT_NODE_DIR"
  rm -rf "$tmp"
}

SYSTEM_PACKAGES=(
  ca-certificates debian-archive-keyring pkg-config g++ make cmake ninja-build ccache python3
  libespeak-ng-dev espeak-ng-data libhtsengine-dev libkissfft-dev libsoxr-dev libsqlite3-dev ffmpeg clang-format cpplint
  libmp3lame-dev libopus-dev libogg-dev libopusenc-dev libflac-dev
)

source scripts/apt-packages.sh
source scripts/node-env.sh
# npm (and the system's node, any version) only to fetch Node 24 when the machine's is older.
command -v npm >/dev/null || SYSTEM_PACKAGES+=(nodejs npm)
ensure_packages "${SYSTEM_PACKAGES[@]}"
if [ "$(sawt_node_major)" -lt "$SAWT_NODE_MIN_MAJOR" ]; then
  install_project_node
  source scripts/node-env.sh
fi
echo "setup: Node.js $(node --version) ($(command -v node))"

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
# script (the native addon). Again when the lockfile or the Node major version changed.
install_stamp() { cat package-lock.json; echo "node $(sawt_node_major)"; }
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s <(install_stamp) node_modules/.sawt-lock 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  install_stamp > node_modules/.sawt-lock
elif [ ! -f native/build/Release/sawt_native.node ]; then
  npm run --silent build:native
fi
npm run --silent build
echo "setup: done"
