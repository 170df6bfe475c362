"""Prints the line numbers of the rows whose field count differs from the header's."""
import csv
import sys

with open(sys.argv[1], newline="", encoding="utf-8") as f:
    rows = csv.reader(f)
    width = len(next(rows))
    for number, row in enumerate(rows, start=2):
        if len(row) != width:
            print(number)
