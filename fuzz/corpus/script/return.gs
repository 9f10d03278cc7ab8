trace f { print "a={}", rdi; }
trace f return { print "r={} {}", $retval, $retval > 0; }
