# mkprobe.py TEMPLATE OUT: a v6 trace.dat with one kprobe event (a
# __data_loc char[] filename, as a ustring argument gives) and a page of
# records whose strings are empty, point outside the record or run past it.
import struct, sys

d = open(sys.argv[1], "rb").read()
head = d[:d.index(b"latency  \0")]
# The template has no event systems, kallsyms or printk: its systems
# count is the u32 0 before three more (kallsyms, printk sizes) and the
# cmdlines; rebuild from the end of the ftrace formats.
p = 10 + 2 + 1 + 1 + 4
for tag in (b"header_page\0", b"header_event\0"):
    p += len(tag)
    p += 8 + struct.unpack("<Q", d[p:p + 8])[0]
n = struct.unpack("<I", d[p:p + 4])[0]
p += 4
for i in range(n):
    p += 8 + struct.unpack("<Q", d[p:p + 8])[0]
assert d[p:p + 12] == b"\0" * 12
cl = struct.unpack("<Q", d[p + 12:p + 20])[0]
cmdlines = d[p + 12:p + 20 + cl]

ID = 0x4B4F		# "OK" in its two bytes
fmt = ("name: rv_openat\nID: %d\nformat:\n"
       "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
       "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
       "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
       "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
       "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
       "\tfield:__data_loc char[] filename;\toffset:16;\tsize:4;\tsigned:1;\n\n"
       "print fmt: \"(%%lx) filename=\\\"%%s\\\"\", REC->__probe_ip, "
       "__get_str(filename)\n" % ID).encode()
out = bytearray(d[:p])
out += struct.pack("<I", 1) + b"kprobes\0" + struct.pack("<I", 1)
out += struct.pack("<Q", len(fmt)) + fmt
out += struct.pack("<II", 0, 0) + cmdlines
out += struct.pack("<I", 1)		# one CPU
out += b"options  \0" + struct.pack("<H", 0)
out += b"flyrecord\0"

def rec(delta, loc, tail=b""):
    data = struct.pack("<HBBiQI", ID, 0, 0, 1234, 0xffffffff81234567, loc)
    data += tail
    assert len(data) % 4 == 0 and len(data) // 4 <= 28
    return struct.pack("<I", (delta << 5) | (len(data) // 4)) + data

def loc(off, n):
    return (n << 16) | off

# Each record's header delta is chosen so that its first bytes, read as a
# string from the end of the record before it, are printable and then NUL.
hi = 3 | (0x69 << 3)	# "hi": 0x68 0x69 0x00 0x00
recs = [
    rec(10, loc(20, 0)),			# empty at its end: "hi" follows
    rec(hi, loc(20, 12), b"/etc/passwd\0"),	# a string
    rec(hi, loc(200, 0)),			# offset outside: from byte 0, "OK"
    rec(1000, loc(20, 4), b"abcd"),		# no NUL inside: "abcd" and on
    rec(hi, loc(20, 0), b"\0\0\0\0"),	# empty, a NUL after it...
    rec(hi, loc(20, 0)),			# ... the last record: zeros after
]
page = bytearray(4096)
body = b"".join(recs)
struct.pack_into("<QQ", page, 0, 1000000000, len(body))
page[16:16 + len(body)] = body
at = (len(out) + 16 + 4095) // 4096 * 4096
out += struct.pack("<QQ", at, 4096)
out += b"\0" * (at - len(out)) + page
open(sys.argv[2], "wb").write(out)
