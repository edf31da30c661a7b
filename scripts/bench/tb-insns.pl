#!/usr/bin/perl
# Instructions a module executed, per function, from a QEMU
# "-d exec,nochain,in_asm" log: each "IN:" block gives a translation block's
# start and instruction count, each "Trace" line one execution of the
# block starting at that guest pc. Functions come from the .ko's .text
# symbols (objdump -t), placed at the module's .text address in the guest.
# Usage: tb-insns.pl LOG TEXT-ADDRS MODULE KO IOS (TEXT-ADDRS: lines of
# ".text-address module core-size"; code past a module's core is "?")
# Prints "function instructions-per-io" lines, "total" last, and
# "module NAME instructions-per-io" for every module in the log.
use strict;
use warnings;
no warnings "portable";	# 64-bit guest addresses through hex()
my ($log, $textf, $mod, $ko, $ios) = @ARGV;
die "usage: tb-insns.pl LOG TEXT-ADDRS MODULE KO IOS\n" unless defined $ios && $ios > 0;
my (@mods, %size, %execs);
open(my $t, '<', $textf) or die "tb-insns: $textf: $!\n";
while (<$t>) { my ($a, $m, $sz) = split; push @mods, [hex($a), $m, $sz || 0]; }
@mods = sort { $a->[0] <=> $b->[0] } @mods;
my ($base) = map { $_->[0] } grep { $_->[1] eq $mod } @mods;
die "tb-insns: module $mod not loaded in the guest ($textf)\n" unless defined $base;
open(my $l, '<', $log) or die "tb-insns: $log: $!\n";
my ($in, $start, $n) = (0, undef, 0);
while (<$l>) {
	if (/^IN:/) { ($in, $start, $n) = (1, undef, 0); next; }
	if ($in) {
		# a long instruction continues on a line of bytes only
		if (/^0x([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*[a-z]/) { $start //= hex($1); $n++; next; }
		next if /^0x/;
		$size{$start} = $n if defined $start;
		$in = 0;
	}
	$execs{hex($1)}++ if /^Trace \d+: \S+ \[[0-9a-f]+\/([0-9a-f]+)\//;
}
my @syms;
open(my $o, '-|', 'objdump', '-t', $ko) or die "tb-insns: objdump $ko: $!\n";
while (<$o>) {
	my @f = split;
	next unless @f >= 6 && $f[-3] eq '.text' && $f[-4] eq 'F';
	push @syms, [hex($f[0]), hex($f[-2]), $f[-1]];
}
@syms = sort { $a->[0] <=> $b->[0] } @syms;
my (%per_mod, %per_fn);
for my $pc (keys %execs) {
	my $ins = $execs{$pc} * ($size{$pc} // 0);
	my $m = '?';
	for my $e (@mods) { last if $e->[0] > $pc; $m = $pc < $e->[0] + $e->[2] ? $e->[1] : '?'; }
	$per_mod{$m} += $ins;
	next unless $m eq $mod;
	my $off = $pc - $base;
	my $fn = 'other';
	for my $s (@syms) {
		last if $s->[0] > $off;
		$fn = $s->[2] if $off < $s->[0] + $s->[1];
	}
	$per_fn{$fn} += $ins;
}
my $total = 0;
for my $fn (sort { $per_fn{$b} <=> $per_fn{$a} } keys %per_fn) {
	$total += $per_fn{$fn};
	printf "%s %.1f\n", $fn, $per_fn{$fn} / $ios if $per_fn{$fn} / $ios >= 0.5;
}
printf "total %.1f\n", $total / $ios;
printf "module %s %.1f\n", $_, $per_mod{$_} / $ios for sort keys %per_mod;
