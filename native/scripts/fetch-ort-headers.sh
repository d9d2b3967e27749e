#!/usr/bin/env bash
# Makes the ONNX Runtime C/C++ headers available to the native build.
#
# The runtime library comes from npm (onnxruntime-node); its headers do not.
# Order of preference:
#   1. a system installation found by `pkg-config libonnxruntime` (Debian 13, Ubuntu 24.04);
#   2. an earlier fetch in .cache/onnxruntime-headers (git-ignored);
#   3. Debian trixie's libonnxruntime-dev .deb, fetched with a private apt
#      configuration (own sources list, lists and cache folders) so that the
#      system's apt setup is never touched, and unpacked into the cache.
# Only the headers are used: trixie's shared library needs a newer glibc than
# bookworm's, and headers of C API 21 work with the 1.30 runtime from npm.
# Idempotent; CMakeLists.txt looks in the same places in the same order.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache="$root/.cache/onnxruntime-headers"
header_rel=include/onnxruntime/onnxruntime_cxx_api.h

if pkg-config --exists libonnxruntime 2>/dev/null; then
  echo "onnxruntime headers: system ($(pkg-config --variable=includedir libonnxruntime))"
  exit 0
fi
if [ -f "$cache/$header_rel" ]; then
  echo "onnxruntime headers: cached in $cache"
  exit 0
fi

if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
  echo "error: onnxruntime headers not found and apt-get/dpkg-deb are unavailable." >&2
  echo "Install ONNX Runtime development headers (pkg-config name 'libonnxruntime')." >&2
  exit 1
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [ ! -f "$keyring" ]; then
  echo "error: $keyring is missing (apt-get install debian-archive-keyring)." >&2
  exit 1
fi

echo "onnxruntime headers: fetching libonnxruntime-dev from Debian trixie into $cache"
apt_dir="$cache/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/deb"
echo "deb [signed-by=$keyring] http://deb.debian.org/debian trixie main" > "$apt_dir/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/sources.list"
  -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir"
  -o "Dir::Cache::Archives=$apt_dir/archives"
  -o "APT::Sandbox::User=$(id -un)"
  -o "Debug::NoLocking=1"
  -q
)
apt-get "${apt_opts[@]}" update >/dev/null
(cd "$apt_dir/deb" && rm -f ./*.deb && apt-get "${apt_opts[@]}" download libonnxruntime-dev >/dev/null)
deb=$(ls "$apt_dir/deb"/libonnxruntime-dev_*.deb)
tmp=$(mktemp -d "$cache/unpack.XXXXXX")
dpkg-deb -x "$deb" "$tmp"
rm -rf "$cache/include"
mv "$tmp/usr/include" "$cache/include"
rm -rf "$tmp" "$apt_dir"
if [ ! -f "$cache/$header_rel" ]; then
  echo "error: $deb did not contain $header_rel" >&2
  exit 1
fi
echo "onnxruntime headers: $(basename "$deb") unpacked into $cache"
