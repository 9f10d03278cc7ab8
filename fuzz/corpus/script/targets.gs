// comments
trace /usr/lib/libfoo.so.1:0x10a0 { /* block */ let v = *(i32 *)rdi; let w = -v << 2; print w; }
trace demo.c:43 { print "{} {}", $pid, $tid; }
trace 0x1139 { print $timestamp; print !~$host_pid; }
