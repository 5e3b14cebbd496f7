#!/bin/sh
# Regenerates the timer signals from nothing but sox's synthesiser (apt-get install sox
# libsox-fmt-all). The .ogg files in this folder were made by exactly this script.
set -eu
cd "$(dirname "$0")"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# start: two-note ascending chime (A5 -> E6), bell-like partials
sox -n -r 48000 -c 1 "$t/n1.wav" synth 0.9 sine 880 sine 1760 sine 2640 remix - gain -6 fade l 0.004 0.9 0.85
sox -n -r 48000 -c 1 "$t/n2.wav" synth 1.3 sine 1318.5 sine 2637 sine 3955.5 remix - gain -6 fade l 0.004 1.3 1.25
sox "$t/n2.wav" "$t/n2d.wav" pad 0.18
sox -m "$t/n1.wav" "$t/n2d.wav" "$t/start.wav" gain -n -3
# warning (10 s left): three short pips at 1 kHz
sox -n -r 48000 -c 1 "$t/pip.wav" synth 0.11 sine 1000 fade h 0.005 0.11 0.02
sox -n -r 48000 -c 1 "$t/gap.wav" trim 0 0.13
sox "$t/pip.wav" "$t/gap.wav" "$t/pip.wav" "$t/gap.wav" "$t/pip.wav" "$t/warning.wav" gain -n -4
# time-up: low gong, slightly beating partials, long decay
sox -n -r 48000 -c 1 "$t/timeup.wav" synth 2.6 sine 146.8 sine 293.7 sine 440.5 sine 587.3 sine 881 remix - tremolo 5 20 fade l 0.01 2.6 2.5 gain -n -2
for f in start warning timeup; do sox "$t/$f.wav" -C 5 "$f.ogg"; done
