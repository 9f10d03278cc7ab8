trace use_record {
	let r = rec->next;
	let n = r->len;
	print "{} {:x} {:s} {:x.16} {:s.0x10} {:x.*} {:X.n$}", p->pos.x, g.arr[i + 1], p->name, &g, *p, 4, p->buf, r->buf;
	if memcmp(p->buf, hex("de ad be ef"), 4) && strncmp(p->name, "GET", 3) || starts_with(g.s, "x") {
		print *cast(rdi, "struct point *");
	}
	print &a[2].b->c;
}
trace f return { print $retval.x; print *$retval; }
