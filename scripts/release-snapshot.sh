#!/usr/bin/env bash
# scripts/release-snapshot.sh [--once | --single-target]
#
# Builds a release snapshot of HEAD with GoReleaser (.goreleaser.yaml, the
# pinned Go tool) into dist/ and checks it:
#   - the archives (tar.gz, zip for Windows), the Debian packages, one
#     CycloneDX SBOM per binary and SHA256SUMS are all there;
#   - the binaries are static, -trimpath, built from a clean tree;
#   - the .deb installs with dpkg -i (into a private root, not this
#     machine's) and its /usr/bin/testresults --version names the commit,
#     the same line as the archive's binary;
#   - a second snapshot, built in another folder, gives the same SHA256SUMS
#     (skipped with --once).
#
# --single-target builds linux/amd64 only, once: .goreleaser.yaml with its
# goos and goarch lists cut to linux and amd64 (GoReleaser's own
# --single-target is for `goreleaser build`, which makes no package), so one
# binary, its archive, SBOM and .deb, made by the same configuration: what CI
# needs to install the package, in a fraction of the time. The full build,
# all six targets twice, stays the default.
#
# It builds what is committed: HEAD is cloned into a temporary folder, so
# uncommitted changes are left out and cannot make two builds differ. Needs
# git, dpkg (Debian's) and the Go toolchain; modules come from the module
# proxy. Prints how long each build took.
set -euo pipefail

once=false
single=false
case "${1:-}" in
  "") ;;
  --once) once=true ;;
  --single-target) once=true single=true ;;
  *) echo "usage: scripts/release-snapshot.sh [--once | --single-target]" >&2; exit 2 ;;
esac

root=$(git rev-parse --show-toplevel)
commit=$(git -C "$root" rev-parse HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/release-snapshot.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "release-snapshot: $*" >&2; exit 1; }

config=()
if $single; then
  # The release configuration as committed, its targets cut to one; kept
  # outside the clone, whose tree must stay clean for Go's vcs stamp.
  single_config=$work/goreleaser-linux-amd64.yaml
  git -C "$root" show "$commit:.goreleaser.yaml" |
    sed -e 's/^    goos: \[linux, darwin, windows\]$/    goos: [linux]/' \
      -e 's/^    goarch: \[amd64, arm64\]$/    goarch: [amd64]/' >"$single_config"
  [ "$(grep -cxE '    goos: \[linux\]|    goarch: \[amd64\]' "$single_config")" -eq 2 ] ||
    fail ".goreleaser.yaml's goos/goarch lines are not the ones this script cuts to linux/amd64: update it"
  config=(--config "$single_config")
fi

# build DIR: clone HEAD into DIR and run the snapshot there.
build() {
  local dir=$1 start end
  git clone -q "$root" "$dir"
  git -C "$dir" checkout -q --detach "$commit"
  # dist/ is GoReleaser's output: ignored, so Go does not record the tree
  # as modified while it builds.
  echo /dist/ >> "$dir/.git/info/exclude"
  start=$(date +%s)
  (cd "$dir" && go tool goreleaser release --snapshot --clean --skip=publish "${config[@]}")
  end=$(date +%s)
  echo "release-snapshot: $dir: built in $((end - start)) s"
}

build "$work/a"
dist=$work/a/dist

# What a release holds.
shopt -s nullglob
archives=("$dist"/testresults_*.tar.gz "$dist"/testresults_*.zip)
debs=("$dist"/testresults_*_linux_*.deb)
sboms=("$dist"/*.cdx.json)
shopt -u nullglob
if $single; then
  want_archives=1 want_debs=1
else
  want_archives=6 want_debs=2
fi
[ "${#archives[@]}" -eq "$want_archives" ] || fail "want $want_archives archives (linux, darwin, windows on amd64, arm64; linux/amd64 with --single-target), got ${#archives[@]}: ${archives[*]}"
[ "${#debs[@]}" -eq "$want_debs" ] || fail "want $want_debs Debian packages (amd64, arm64; amd64 with --single-target), got ${#debs[@]}"
[ "${#sboms[@]}" -eq "$want_archives" ] || fail "want one SBOM per binary ($want_archives), got ${#sboms[@]}"
[ -s "$dist/SHA256SUMS" ] || fail "no SHA256SUMS"
(cd "$dist" && sha256sum --check --quiet SHA256SUMS) || fail "SHA256SUMS does not match the files"
for f in "${archives[@]}" "${debs[@]}"; do
  grep -q "  $(basename "$f")\$" "$dist/SHA256SUMS" || fail "SHA256SUMS does not list $(basename "$f")"
done
for s in "${sboms[@]}"; do
  grep -q '"bomFormat": "CycloneDX"' "$s" || fail "$s is not a CycloneDX document"
done

# The linux/amd64 binary: static, trimmed, from a clean tree at HEAD.
tar -xzf "$dist"/testresults_*_linux_amd64.tar.gz -C "$work" testresults
info=$(go version -m "$work/testresults")
for want in "CGO_ENABLED=0" "-trimpath=true" "vcs.revision=$commit" "vcs.modified=false"; do
  grep -qF -- "$want" <<<"$info" || fail "the linux/amd64 binary's build info lacks $want:
$info"
done
archive_version=$("$work/testresults" --version)

# The .deb installs with dpkg -i, into a private root and database.
deb=$(ls "$dist"/testresults_*_linux_amd64.deb)
[ "$(dpkg-deb -f "$deb" Package)" = testresults ] || fail "$deb: package name is not testresults"
inst=$work/root
mkdir -p "$inst/var/lib/dpkg/info" "$inst/var/lib/dpkg/updates" "$inst/var/lib/dpkg/triggers"
touch "$inst/var/lib/dpkg/status"
dpkg --admindir="$inst/var/lib/dpkg" --instdir="$inst" --force-not-root --force-script-chrootless -i "$deb"
dpkg --admindir="$inst/var/lib/dpkg" -L testresults | grep -qx /usr/bin/testresults || fail "the package does not install /usr/bin/testresults"
deb_version=$("$inst/usr/bin/testresults" --version)
echo "release-snapshot: testresults --version: $deb_version"
case "$deb_version" in
  "testresults v"*"(commit $commit, "*) ;;
  *) fail "the installed testresults --version does not name commit $commit: $deb_version" ;;
esac
case "$deb_version" in *modified*) fail "the build recorded a modified tree: $deb_version" ;; esac
if tag=$(git -C "$root" describe --exact-match --tags --match 'v*' "$commit" 2>/dev/null); then
  case "$deb_version" in
    "testresults $tag "*) ;;
    *) fail "HEAD is tagged $tag, but testresults --version says: $deb_version" ;;
  esac
fi
[ "$deb_version" = "$archive_version" ] || fail "the .deb and the archive differ: $deb_version / $archive_version"

# Reproducible: a second build, in another folder, gives the same files.
if ! $once; then
  build "$work/b"
  if ! cmp -s "$dist/SHA256SUMS" "$work/b/dist/SHA256SUMS"; then
    diff "$dist/SHA256SUMS" "$work/b/dist/SHA256SUMS" >&2 || true
    fail "two snapshots of $commit differ"
  fi
  echo "release-snapshot: reproducible: two builds gave the same SHA256SUMS"
fi

rm -rf "$root/dist"
cp -r "$dist" "$root/dist"
echo "release-snapshot: ok: $root/dist"
cat "$root/dist/SHA256SUMS"
