# Shared by the plot scripts: the terminal from `term` ("png" or "svg") and the output `outfile`.
if (term eq "svg") {
    set terminal svg size 960,620 dynamic noenhanced font "Sans,12" background "white"
} else {
    set terminal pngcairo size 960,620 noenhanced font "Sans,11"
}
set output outfile
set grid
set key outside right top
