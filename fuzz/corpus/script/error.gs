trace f { print "{:s}", 1; }
