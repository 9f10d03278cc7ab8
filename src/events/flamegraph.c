/* Flame graphs (gs/fold.h; gstrace --flamegraph FILE.svg): folded stacks
 * merged into a tree (root "all", each frame's width its share of the
 * samples) and drawn as Brendan Gregg's flame graphs are: one <g class="f">
 * with a title, a rect and a label per frame, root at the bottom, warm
 * colours stable per name. The SVG is self contained: a small script inside
 * it zooms on a click and highlights a regular expression search (Ctrl-F),
 * with nothing fetched from a network. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/fold.h>

#define IMAGE_WIDTH 1200
#define XPAD 10
#define FRAME_H 16      /* a level: 15 px of frame and 1 px between */
#define YPAD_TOP 60     /* title, buttons */
#define YPAD_BOTTOM 36  /* details line */
#define FONT_W 7.0      /* average glyph width at 12 px, for labels */

struct node {
	const char *name;
	size_t len;
	uint64_t count;
	struct node *child, *next; /* first child, next sibling (by name) */
};

static struct node *child_named(struct node *parent, const char *name, size_t len)
{
	struct node **at = &parent->child, *n;

	for (; *at; at = &(*at)->next) {
		int k = strncmp((*at)->name, name, len < (*at)->len ? len : (*at)->len);

		if (k == 0 && (*at)->len == len)
			return *at;
		if (k > 0 || (k == 0 && (*at)->len > len))
			break;
	}
	if (!(n = calloc(1, sizeof(*n))))
		return NULL;
	n->name = name;
	n->len = len;
	n->next = *at;
	*at = n;
	return n;
}

static void tree_free(struct node *n)
{
	while (n) {
		struct node *next = n->next;

		tree_free(n->child);
		free(n);
		n = next;
	}
}

static unsigned tree_depth(const struct node *n)
{
	unsigned d = 0;

	for (const struct node *c = n->child; c; c = c->next) {
		unsigned k = tree_depth(c);

		if (k > d)
			d = k;
	}
	return d + 1;
}

static void xml_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], f);
		}
	}
}

/* flamegraph.pl's "hot" palette, from a hash of the name so colours stay
 * the same from one run to the next. */
static void colour(const char *name, size_t len, int rgb[3])
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	rgb[0] = 205 + (int)(h % 51);
	rgb[1] = (int)((h >> 8) % 231);
	rgb[2] = (int)((h >> 16) % 56);
}

struct layout {
	FILE *f;
	uint64_t total;
	unsigned height;
};

static void draw(struct layout *l, const struct node *n, uint64_t start, unsigned depth)
{
	double w = (double)(IMAGE_WIDTH - 2 * XPAD) * (double)n->count / (double)l->total;
	double x = XPAD + (double)(IMAGE_WIDTH - 2 * XPAD) * (double)start / (double)l->total;
	double y = (double)l->height - YPAD_BOTTOM - (double)(depth + 1) * FRAME_H;
	size_t fit = w > 6 ? (size_t)((w - 6) / FONT_W) : 0;
	uint64_t at = start;
	int rgb[3];

	colour(n->name, n->len, rgb);
	fprintf(l->f, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\" data-d=\"%u\">"
		"<title>", start, n->count, depth);
	xml_text(l->f, n->name, n->len);
	fprintf(l->f, " (%" PRIu64 " sample%s, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" "
		"width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>"
		"<text x=\"%.2f\" y=\"%.1f\">", n->count, n->count == 1 ? "" : "s",
		100.0 * (double)n->count / (double)l->total, x, y, w, FRAME_H - 1, rgb[0], rgb[1],
		rgb[2], x + 3, y + 10.5);
	if (fit >= 3)
		xml_text(l->f, n->name, n->len <= fit ? n->len : fit - 2);
	if (fit >= 3 && n->len > fit)
		fputs("..", l->f);
	fputs("</text></g>\n", l->f);
	for (const struct node *c = n->child; c; c = c->next) {
		draw(l, c, at, depth + 1);
		at += c->count;
	}
}

/* The script: zoom (click), reset (Reset Zoom or Escape), search (Search
 * or Ctrl-F), details of the frame under the pointer. Positions are
 * recomputed from each frame's data-s (first sample), data-n (samples) and
 * data-d (depth). */
static const char script[] =
	"var W = " "1180" ", X0 = 10, CH = 7, frames, details, unzoombtn, matchedtxt, zoomed = null;\n"
	"function init(evt) {\n"
	"  frames = document.getElementById('frames');\n"
	"  details = document.getElementById('details').firstChild;\n"
	"  unzoombtn = document.getElementById('unzoom');\n"
	"  matchedtxt = document.getElementById('matched');\n"
	"  frames.addEventListener('click', function (e) { var g = frame_of(e.target); if (g) zoom(g); });\n"
	"  frames.addEventListener('mouseover', function (e) { var g = frame_of(e.target);\n"
	"    if (g) details.nodeValue = 'Function: ' + g.querySelector('title').textContent; });\n"
	"  frames.addEventListener('mouseout', function () { details.nodeValue = ' '; });\n"
	"  unzoombtn.addEventListener('click', unzoom);\n"
	"  document.getElementById('search').addEventListener('click', search_prompt);\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search_prompt(); }\n"
	"    else if (e.key === 'Escape') { unzoom(); reset_search(); } });\n"
	"}\n"
	"function frame_of(t) { while (t && t !== frames) { if (t.classList && t.classList.contains('f')) return t; t = t.parentNode; } return null; }\n"
	"function num(g, k) { return parseFloat(g.getAttribute('data-' + k)); }\n"
	"function name_of(g) { var t = g.querySelector('title').textContent; return t.replace(/ \\([0-9]+ samples?, [0-9.]+%\\)$/, ''); }\n"
	"function place(g, x, w) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
	"  t.setAttribute('x', (x + 3).toFixed(2));\n"
	"  var name = name_of(g), fit = Math.floor((w - 6) / CH);\n"
	"  t.textContent = fit < 3 ? '' : name.length <= fit ? name : name.substring(0, fit - 2) + '..';\n"
	"}\n"
	"function zoom(node) {\n"
	"  var s0 = num(node, 's'), n0 = num(node, 'n'), d0 = num(node, 'd');\n"
	"  var all = frames.querySelectorAll('g.f');\n"
	"  zoomed = node; unzoombtn.classList.remove('hide');\n"
	"  for (var i = 0; i < all.length; i++) {\n"
	"    var g = all[i], s = num(g, 's'), n = num(g, 'n'), d = num(g, 'd');\n"
	"    g.classList.remove('hide'); g.classList.remove('parent');\n"
	"    if (d < d0 && s <= s0 && s + n >= s0 + n0) { g.classList.add('parent'); place(g, X0, W); }\n"
	"    else if (d >= d0 && s >= s0 && s + n <= s0 + n0) place(g, X0 + (s - s0) / n0 * W, n / n0 * W);\n"
	"    else g.classList.add('hide');\n"
	"  }\n"
	"}\n"
	"function unzoom() {\n"
	"  var all = frames.querySelectorAll('g.f'), total = num(all[0], 'n');\n"
	"  zoomed = null; unzoombtn.classList.add('hide');\n"
	"  for (var i = 0; i < all.length; i++) {\n"
	"    var g = all[i]; g.classList.remove('hide'); g.classList.remove('parent');\n"
	"    place(g, X0 + num(g, 's') / total * W, num(g, 'n') / total * W);\n"
	"  }\n"
	"}\n"
	"function reset_search() {\n"
	"  var all = frames.querySelectorAll('g.f');\n"
	"  for (var i = 0; i < all.length; i++) {\n"
	"    var r = all[i].querySelector('rect'), o = r.getAttribute('data-fill');\n"
	"    if (o) { r.setAttribute('fill', o); r.removeAttribute('data-fill'); }\n"
	"  }\n"
	"  matchedtxt.firstChild.nodeValue = ' ';\n"
	"}\n"
	"function search_prompt() {\n"
	"  var term = prompt('Search for (regular expression):', '');\n"
	"  if (term !== null && term !== '') search(term); else reset_search();\n"
	"}\n"
	"function search(term) {\n"
	"  var re, all = frames.querySelectorAll('g.f'), total = num(all[0], 'n'), spans = [];\n"
	"  try { re = new RegExp(term); } catch (e) { matchedtxt.firstChild.nodeValue = 'bad expression'; return; }\n"
	"  reset_search();\n"
	"  for (var i = 0; i < all.length; i++) {\n"
	"    var g = all[i];\n"
	"    if (!re.test(name_of(g))) continue;\n"
	"    var r = g.querySelector('rect');\n"
	"    r.setAttribute('data-fill', r.getAttribute('fill')); r.setAttribute('fill', 'rgb(230,0,230)');\n"
	"    spans.push([num(g, 's'), num(g, 's') + num(g, 'n')]);\n"
	"  }\n"
	"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"  var sum = 0, end = -1;\n"
	"  for (var k = 0; k < spans.length; k++) {\n"
	"    if (spans[k][0] >= end) { sum += spans[k][1] - spans[k][0]; end = spans[k][1]; }\n"
	"    else if (spans[k][1] > end) { sum += spans[k][1] - end; end = spans[k][1]; }\n"
	"  }\n"
	"  matchedtxt.firstChild.nodeValue = 'Matched: ' + (100 * sum / total).toFixed(1) + '%';\n"
	"}\n";

static void header(FILE *f, unsigned height, const char *title)
{
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"onload=\"init(evt)\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style type=\"text/css\">\n"
		"text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
		"#title { text-anchor: middle; font-size: 17px; }\n"
		"#search, #unzoom { cursor: pointer; }\n"
		"g.f:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
		".hide { display: none; }\n"
		".parent { opacity: 0.5; }\n"
		"</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n"
		"<rect id=\"background\" x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" "
		"fill=\"rgb(248,248,238)\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\">", IMAGE_WIDTH, height, IMAGE_WIDTH, height,
		script, IMAGE_WIDTH, height, IMAGE_WIDTH / 2);
	xml_text(f, title, strlen(title));
	fprintf(f, "</text>\n"
		"<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		"<g id=\"frames\">\n", XPAD, IMAGE_WIDTH - XPAD - 60, IMAGE_WIDTH - XPAD - 120,
		height - 17, XPAD, height - 17);
}

int gs_flamegraph_write(const struct gs_counts *stacks, const char *title, FILE *f)
{
	size_t n = stacks ? gs_counts_size(stacks) : 0;
	struct gs_count *v = n ? gs_counts_sorted(stacks) : NULL;
	struct node root = { .name = "all", .len = 3 };
	struct layout l = { .f = f };
	int rc = 0;

	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *s = v[i].key, *end = s + v[i].len;
		struct node *at = &root;

		root.count += v[i].count;
		while (s < end && rc == 0) {
			const char *semi = memchr(s, ';', (size_t)(end - s));
			size_t len = semi ? (size_t)(semi - s) : (size_t)(end - s);

			if (!(at = child_named(at, s, len)))
				rc = -ENOMEM;
			else
				at->count += v[i].count;
			s += len + 1;
		}
	}
	if (rc == 0) {
		l.total = root.count ? root.count : 1;
		l.height = YPAD_TOP + tree_depth(&root) * FRAME_H + YPAD_BOTTOM;
		header(f, l.height, title);
		if (root.count)
			draw(&l, &root, 0, 0);
		fputs("</g>\n</svg>\n", f);
		rc = fflush(f) || ferror(f) ? -EIO : 0;
	}
	tree_free(root.child);
	free(v);
	return rc;
}
