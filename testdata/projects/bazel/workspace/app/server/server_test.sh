#!/bin/sh
echo "server answers"
