#!/bin/sh
echo "parse: expected 3 fields, got 2" >&2
exit 1
