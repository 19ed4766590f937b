#!/bin/sh
# Emit the kernel's symbol table as assembly for the .ksyms section, read by
# lib/backtrace.c.  usage: gensyms.sh kernel.elf > ksyms.S  (no argument:
# an empty table, for the first link pass).
set -e
{
	if [ -n "$1" ]; then
		nm -n --defined-only "$1" | awk '$2 ~ /^[tT]$/ && $3 !~ /^\./ { print $1, $3 }'
	fi
} | awk '
BEGIN { n = 0 }
{ addr[n] = $1; name[n] = $2; n++ }
END {
	print "\t.section .ksyms, \"a\""
	print "\t.balign 8"
	print "\t.globl ksyms_count, ksyms_addr, ksyms_name, ksyms_strings"
	print "ksyms_count:\t.quad " n
	print "ksyms_addr:"
	for (i = 0; i < n; i++) print "\t.quad 0x" addr[i]
	print "ksyms_name:"
	off = 0
	for (i = 0; i < n; i++) { print "\t.long " off; off += length(name[i]) + 1 }
	print "ksyms_strings:"
	for (i = 0; i < n; i++) print "\t.asciz \"" name[i] "\""
	print "\t.section .note.GNU-stack, \"\", @progbits"
}'
