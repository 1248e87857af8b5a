#!/usr/bin/env bash
# Sourced by headspace-env.sh. Puts a Node >= 22.17 first on PATH, provisioning one from the
# npm registry's node-linux-<arch> package (a plain binary inside a registry tarball) when the
# machine's own Node is older. Nothing is installed outside the checkout.
HS_NODE_MIN_MAJOR=22
HS_NODE_MIN_MINOR=17
HS_NODE_PROVISION_VERSION="${HS_NODE_PROVISION_VERSION:-24}"

hs_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  local v major minor
  v="$(node -p 'process.versions.node' 2>/dev/null)" || return 1
  major="${v%%.*}"; minor="$(echo "$v" | cut -d. -f2)"
  [ "$major" -gt "$HS_NODE_MIN_MAJOR" ] || { [ "$major" -eq "$HS_NODE_MIN_MAJOR" ] && [ "$minor" -ge "$HS_NODE_MIN_MINOR" ]; }
}

hs_ensure_node() {
  local root="$1" tools="$1/.tools/node"
  local arch; case "$(uname -m)" in x86_64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
  local bin="$tools/node_modules/node-linux-$arch/bin"
  if [ -x "$bin/node" ]; then export PATH="$bin:$PATH"; fi
  if hs_node_ok; then return 0; fi
  command -v npm >/dev/null 2>&1 || { echo "headspace: npm is required to provision Node >= 22.17" >&2; return 1; }
  echo "headspace: Node $(node -v 2>/dev/null || echo none) is older than 22.17; provisioning Node $HS_NODE_PROVISION_VERSION from the npm registry into .tools/node" >&2
  mkdir -p "$tools"
  npm install --prefix "$tools" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-$arch@$HS_NODE_PROVISION_VERSION" >&2
  export PATH="$bin:$PATH"
  hs_node_ok || { echo "headspace: could not provision Node >= 22.17 (looked in $bin)" >&2; return 1; }
}
