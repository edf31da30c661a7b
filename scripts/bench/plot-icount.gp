# gnuplot -e "pre='PREFIX'; lay='frag'; out='FILE'; term='svg|png'" scripts/bench/plot-icount.gp
# One panel per rw: the IOPS-equivalent ratio to prealloc (prealloc ipio /
# configuration ipio) of each cell with its 95% interval, a line at 1.0.
if (term eq 'png') set terminal pngcairo size 1500,560 font ',10'; else set terminal svg size 1500,560 font ',10'
set output out
set multiplot layout 1,2 title sprintf('virtio\_blk\_sgl under -icount (%s memory): instructions-per-I/O ratio to prealloc, 95%% CI', lay)
set ylabel 'prealloc / configuration (> 1: cheaper)'
set xtics rotate by -60 noenhanced font ',8'
set bmargin 8
set grid ytics
# the key below the labels, where no cell's interval or title can be
set key outside bottom center horizontal font ',9'
set offsets 0.5, 0.5, 0, 0
do for [rw in 'read write'] {
	f = sprintf('%s.%s.%s.dat', pre, lay, rw)
	set title rw
	plot 1 with lines lc 'black' dt 2 notitle, \
		f using ($0 - 0.2):2:3:4:xtic(1) with yerrorbars pt 7 ps 0.6 title 'inline 2', \
		'' using ($0):5:6:7 with yerrorbars pt 5 ps 0.6 title 'tuned', \
		'' using ($0 + 0.2):8:9:10 with yerrorbars pt 9 ps 0.6 title 'in-tree virtio\_blk'
}
unset multiplot
