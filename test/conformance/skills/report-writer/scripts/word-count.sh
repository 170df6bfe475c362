#!/bin/sh
# Counts the words of a report given as the first argument.
wc -w < "$1"
