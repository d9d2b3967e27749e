# Sourced by scripts/setup.sh, scripts/test.sh and .ci/run: the Node.js Sawt runs on.
# Supported: Node.js 24 LTS and 22 (20 reached end of life on 2026-04-30). When the machine's
# `node` is older (or absent), scripts/setup.sh installs Node 24 into .node/ (git-ignored) from
# the npm registry; this file then puts .node/bin first on the PATH, and `sawt` (packages/cli/bin/
# sawt.js) starts .node/bin/node itself, whatever the caller's PATH.
# Native builds compile against the headers of the Node that runs them, found beside its binary
# (npm_config_nodedir, read by node-gyp, which would otherwise download them from nodejs.org).
SAWT_NODE_MIN_MAJOR=22
SAWT_NODE_VERSION=24.21.0
sawt_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SAWT_NODE_DIR="$sawt_root/.node"
case ":$PATH:" in
  *":$SAWT_NODE_DIR/bin:"*) ;;
  *) [ -x "$SAWT_NODE_DIR/bin/node" ] && export PATH="$SAWT_NODE_DIR/bin:$PATH" ;;
esac
# The major version of the `node` on the PATH (0 when there is none).
sawt_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
# The prefix of the `node` on the PATH, when its headers lie beside it (include/node).
sawt_node_prefix=$(node -p 'require("path").resolve(process.execPath, "../..")' 2>/dev/null || true)
if [ -n "$sawt_node_prefix" ] && [ -f "$sawt_node_prefix/include/node/common.gypi" ] && [ -f "$sawt_node_prefix/include/node/node_api.h" ]; then
  export npm_config_nodedir="$sawt_node_prefix"
fi
unset sawt_root sawt_node_prefix
