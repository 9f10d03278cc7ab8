trace dummy_touch { print "HOT_STACK"; bt full; }
trace hot_bt_leaf { bt; backtrace raw noinline; }
