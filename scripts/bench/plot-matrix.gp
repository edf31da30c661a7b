# gnuplot -e "dat='...'; out='...'; term='svg|png'" scripts/bench/plot-matrix.gp
if (term eq 'png') set terminal pngcairo size 1600,600 font ',9'; else set terminal svg size 1600,600 font ',9'
set output out
set title 'virtio\_blk\_sgl in a TCG guest: IOPS per configuration (median; bars show min..max over rounds)'
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.7 border -1
set ylabel 'IOPS'
set xtics rotate by -45 noenhanced
set key top right
set grid ytics
plot dat using 2:3:4:xtic(1) title 'prealloc', '' using 5:6:7 title 'inline 2', '' using 8:9:10 title 'tuned'
