#!/usr/bin/env bash
# mirror.sh: print the Debian mirror the image build uses, and nothing else.
# kchaos names no mirror of its own: it uses the one this machine's apt
# already trusts, so that a build never reaches a host the machine's owner
# did not choose.
#   1. DEBIAN_MIRROR, when set;
#   2. else the first Debian archive in $APT_ROOT/etc/apt/sources.list.d/*.sources
#      (deb822: a stanza with Types: deb and a URIs: line);
#   3. else the first "deb URL suite ..." line of $APT_ROOT/etc/apt/sources.list
#      or $APT_ROOT/etc/apt/sources.list.d/*.list.
# Security suites (bookworm-security, bookworm/updates), deb-src entries,
# disabled stanzas (Enabled: no) and non-URL sources (cdrom:) are skipped.
# APT_ROOT (default empty: the real /etc/apt) lets a test give fake files.
# Sourced by build.sh (debian_mirror) or run directly; exits 1 with a
# message naming both ways to set a mirror when it finds none.
set -euo pipefail

# deb822_mirror FILE...: the first URI of an enabled deb stanza whose suites
# are not all security suites.
deb822_mirror() {
  awk '
    function flush() {
      if (types ~ /(^| )deb( |$)/ && enabled != "no" && uri != "" && plain) { print uri; found = 1; exit }
      types = ""; uri = ""; enabled = ""; plain = 0
    }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    /^Types:/   { sub(/^Types:[ \t]*/, ""); types = $0; next }
    /^URIs:/    { sub(/^URIs:[ \t]*/, ""); split($0, u, /[ \t]+/); if (u[1] ~ /^(https?|ftp|file):\/\//) uri = u[1]; next }
    /^Enabled:/ { sub(/^Enabled:[ \t]*/, ""); enabled = tolower($0); next }
    /^Suites:/  { sub(/^Suites:[ \t]*/, ""); n = split($0, s, /[ \t]+/)
                  for (i = 1; i <= n; i++) if (s[i] != "" && s[i] !~ /(-security|\/updates)$/) plain = 1; next }
    END { if (!found) flush() }
  ' "$@" 2>/dev/null | head -1
}

# classic_mirror FILE...: the URL of the first "deb [options] URL suite" line
# whose suite is not a security suite.
classic_mirror() {
  awk '
    /^[ \t]*deb[ \t]/ {
      sub(/^[ \t]*deb[ \t]+/, "")
      if ($0 ~ /^\[/) sub(/^\[[^]]*\][ \t]*/, "")
      if ($1 ~ /^(https?|ftp|file):\/\// && $2 != "" && $2 !~ /(-security|\/updates)$/) { print $1; exit }
    }
  ' "$@" 2>/dev/null | head -1
}

debian_mirror() {
  local root=${APT_ROOT:-} m="" f
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    echo "$DEBIAN_MIRROR"; return 0
  fi
  local deb822=() classic=()
  for f in "$root"/etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && deb822+=("$f"); done
  [ -f "$root/etc/apt/sources.list" ] && classic+=("$root/etc/apt/sources.list")
  for f in "$root"/etc/apt/sources.list.d/*.list; do [ -f "$f" ] && classic+=("$f"); done
  [ ${#deb822[@]} -eq 0 ] || m=$(deb822_mirror "${deb822[@]}")
  [ -n "$m" ] || [ ${#classic[@]} -eq 0 ] || m=$(classic_mirror "${classic[@]}")
  if [ -z "$m" ]; then
    echo "image: no Debian mirror: none in $root/etc/apt/sources.list.d/*.sources (URIs:) or $root/etc/apt/sources.list (deb URL suite); set DEBIAN_MIRROR=<your Debian mirror URL>" >&2
    return 1
  fi
  echo "${m%/}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  debian_mirror
fi
