# Sourced by tests/arm64/run and tests/arm64/dkms: what makes a file an
# arm64 build of ours.

# is_aarch64 FILE: an ELF for AArch64 (e_machine), as readelf reads it
is_aarch64() { readelf -h "$1" 2>/dev/null | grep -q 'Machine:.*AArch64'; }
# module_ok KO KVER FLAVOUR: AArch64, vermagic KVER, flavour as named, and
# the production flavour without a test_ parameter
module_ok() {
	is_aarch64 "$1" || { echo "$1 is not an AArch64 object"; return 1; }
	[ "$(modinfo -F vermagic "$1" | cut -d' ' -f1)" = "$2" ] || { echo "vermagic $(modinfo -F vermagic "$1")"; return 1; }
	[ "$(modinfo -F flavour "$1")" = "$3" ] || { echo "flavour $(modinfo -F flavour "$1")"; return 1; }
	if [ "$3" = production ]; then
		! modinfo -p "$1" | grep -q '^test_' || { echo "a test_ parameter in the production module"; return 1; }
	fi
}
