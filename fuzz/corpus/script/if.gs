trace hot_bt_probe {
  if rdi % 2 == 0 { print "EVEN"; bt full; }
  else if rdi > 2048 && rdi % 64 == 1 { bt raw noinline; }
  else { print "v={} sp={:p} x={:x}", rdi, $sp, *(u64 *)($sp + 8); }
}
