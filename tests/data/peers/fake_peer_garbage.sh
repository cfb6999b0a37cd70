#!/bin/sh
# A peer that exits 0 but prints no JSON, then half a JSON document.
echo "| model | size | params | backend | threads | test | t/s |"
echo "[ { \"avg_ts\": 12.5, \"samples_ts\": [ 12.4,"
