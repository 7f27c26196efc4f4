# plot.gp - relative forward error of the triangular solvers against Skeel's
# condition number, one panel per n (the figures of Langlois & Louvet 2005
# and Iakymchuk et al. 2015). Reads the CSV of trsv-accuracy.
#   gnuplot -e "csv='bench/results/accuracy.csv'; png='bench/results/accuracy.png'" plot.gp
# Errors are clipped to [1e-17, 10]: an exact solution (error 0) sits on the
# floor, an error above 1 (no correct digit, or inf/NaN) on the ceiling.
if (!exists("csv")) csv = 'bench/results/accuracy.csv'
if (!exists("png")) png = 'bench/results/accuracy.png'

set terminal pngcairo size 1600,820 font "sans,11"
set output png
set datafile separator ","
set datafile missing "NaN"

u = 2.0**-53
floor_ = 1e-17
ceil_ = 10.0
clip(e) = (e != e || e > ceil_) ? ceil_ : (e < floor_ ? floor_ : e)
# column 8 may read "inf": then gnuplot sees no number; valid() catches it.
err(c) = valid(8) ? clip(column(8)) : ceil_
is(n, fam, m) = ($1 == n && strcol(2) eq fam && strcol(7) eq m)
# the two families of systems with a representable (integer) solution
rep(n, m) = ($1 == n && strcol(2) ne "generated" && strcol(7) eq m)

set logscale xy
set xrange [1e4:1e42]
set yrange [3e-18:1e2]
set format x "10^{%T}"
set format y "10^{%T}"
set xlabel "condition number cond(T, x) (Skeel, computed in MPFR)"
set ylabel "relative forward error  max|x - x*| / max|x*|"
set grid xtics ytics mxtics mytics lc rgb "#e0e0e0"
set key below horizontal maxrows 4 font ",10" spacing 1.1 width -4
set style line 1 lc rgb "#d62728" pt 7 ps 0.9   # naive
set style line 2 lc rgb "#ff7f0e" pt 2 ps 1.1   # openblas
set style line 3 lc rgb "#1f77b4" pt 6 ps 1.2   # double-double
set style line 4 lc rgb "#2ca02c" pt 4 ps 1.0   # compensated
set style line 5 lc rgb "#9467bd" pt 8 ps 1.0   # exact
set style line 6 lc rgb "#000000" pt 1 ps 1.3   # refined
set style line 7 lc rgb "#8c564b" pt 5 ps 1.2   # exact families: exact and refined
set style line 8 lc rgb "#e377c2" pt 9 ps 1.2   # exact families: naive, OpenBLAS
set style line 9 lc rgb "#17becf" pt 13 ps 1.2  # exact families: compensated, double-double

set multiplot layout 1,2 title "Triangular solve T x = b: forward error against the condition number (u = 2^{-53})"
do for [n in "40 200"] {
  nn = n + 0
  set title sprintf("n = %d  (generated: exala::generate\\_ill\\_conditioned\\_trsv; representable x: integer solutions)", nn)
  set label 1 "error 0 (exact) plotted at 10^{-17}" at graph 0.02, first 1.4e-17 font ",9" front
  set label 2 "error > 1 plotted at 10" at graph 0.02, first 14 font ",9" front
  plot u w l lc rgb "#404040" dt 1 lw 1.5 t "u", \
       nn*x*u w l lc rgb "#404040" dt 2 lw 1.5 t "n cond u", \
       u + nn*x*u*u w l lc rgb "#404040" dt 3 lw 1.5 t "u + n cond u^2", \
       csv every ::1 u (is(nn, "generated", "naive") ? $6 : NaN):(err(0)) w p ls 1 t "naive substitution", \
       csv every ::1 u (is(nn, "generated", "openblas") ? $6 : NaN):(err(0)) w p ls 2 t "OpenBLAS dtrsv", \
       csv every ::1 u (is(nn, "generated", "double-double") ? $6 : NaN):(err(0)) w p ls 3 t "double-double", \
       csv every ::1 u (is(nn, "generated", "compensated") ? $6 : NaN):(err(0)) w p ls 4 t "compensated (CENA)", \
       csv every ::1 u (is(nn, "generated", "exact") ? $6 : NaN):(err(0)) w p ls 5 t "exact (exala::trsv)", \
       csv every ::1 u (is(nn, "generated", "refined") ? $6 : NaN):(err(0)) w p ls 6 t "exact + refinement", \
       csv every ::1 u ((rep(nn, "exact") || rep(nn, "refined")) ? $6 : NaN):(err(0)) w p ls 7 t "representable x: exact, refined", \
       csv every ::1 u ((rep(nn, "compensated") || rep(nn, "double-double")) ? $6 : NaN):(err(0)) w p ls 9 t "representable x: compensated, double-double", \
       csv every ::1 u ((rep(nn, "naive") || rep(nn, "openblas")) ? $6 : NaN):(err(0)) w p ls 8 t "representable x: naive, OpenBLAS"
}
unset multiplot
