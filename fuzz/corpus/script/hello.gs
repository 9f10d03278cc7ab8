trace main { print "hello"; }
