// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report as one self-contained HTML page (render_html.h): its head,
 * style and script inline (nothing fetched), the run's health and hosts side
 * by side, and the pieces in order. Every string of a trace goes through
 * html_text(): what text_escape() would show, with HTML's special characters
 * as entities, safe in text and in quoted attributes alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include "util/duration.h"
#include "render_html.h"

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#ad494a",
};

const char *html_color(size_t i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

const char *html_dur(uint64_t ns, char *buf, size_t len)
{
	return duration_format(ns, buf, len);
}

const char *html_time(int64_t ns, char *buf, size_t len)
{
	time_t secs = (time_t)(ns / 1000000000LL);
	int64_t frac = ns % 1000000000LL;
	char date[32];
	struct tm tm;

	if (frac < 0) {
		frac += 1000000000LL;
		secs--;
	}
	gmtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03" PRId64, date, frac / 1000000);
	return buf;
}

static const char page_style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}"
	"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}"
	"table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 8px;"
	"text-align:right}th:first-child,td:first-child{text-align:left}"
	".sampled,.warn{background:#fff3cd;padding:4px 8px;border-left:4px solid #e0a800}"
	".warn{border-color:#d62728;background:#fde2e2}"
	"svg text{font:11px sans-serif;fill:#333}.tick{fill:#555}"
	".grid{stroke:#eee}.pt{stroke:none;opacity:.75;cursor:pointer}.pt:hover{stroke:#000}"
	".pt.top{stroke:#000;stroke-width:1.5;opacity:1}"
	".inflight line{stroke:#000;stroke-width:3;opacity:.6}"
	".legend span{margin-right:1em;white-space:nowrap}"
	".legend i,h3 i{display:inline-block;width:.8em;height:.8em;margin-right:.3em}"
	".hungkey{background:#000}.why{font-family:monospace;min-height:1.4em}"
	".cards{display:flex;flex-wrap:wrap;gap:1em}.card{border:1px solid #ddd;padding:.5em;"
	"width:410px}.card h3{margin:.2em 0}.cls{color:#666;font-weight:normal}"
	".bar{fill:#4c78a8}.thr line{stroke:#d62728;stroke-width:2}.thr text{fill:#d62728}"
	".normal line{stroke:#2ca02c;stroke-width:2;stroke-dasharray:4 3}"
	".normal text{fill:#2ca02c}.step{fill:none;stroke:#d62728;stroke-width:1.5}"
	".learned circle{fill:#d62728}.static circle{fill:#fff;stroke:#d62728}"
	".throttle rect{fill:#e0a800}"
	".flame .fr rect{stroke:#fff;stroke-width:.5}.flame .fr{cursor:pointer}"
	".flame .usr rect{fill:#f2a65a}.flame .sys rect{fill:#d62728}"
	".flame .sys text{fill:#fff}.flame .krn rect{fill:#7fa7d6}.flame .root rect{fill:#bbb}"
	".flame .fr.hit rect{fill:#e377c2}.flame .fr.dim{opacity:.45}"
	".top{border:1px solid #ddd;margin:1em 0;padding:.5em 1em}.top h3{margin:.2em 0}"
	".whyline{font-family:monospace}.stacks{display:flex;gap:2em;flex-wrap:wrap}"
	".stacks ol{font-family:monospace;font-size:12px;margin:0}"
	".bd .on{fill:#2ca02c}.bd .rq{fill:#ff7f0e}.bd .sl{fill:#1f77b4}.bd .io{fill:#9467bd}"
	".bd .other{fill:#ccc}.bd line{stroke:#000;stroke-width:1.5}"
	"dl{display:grid;grid-template-columns:max-content auto;gap:0 1em}dd{margin:0}";

/*
 * Interaction only: the page reads whole without it. Zoom into a flame
 * graph frame, search frames, show a point's why on click; then mark the
 * page ready (with the time it took) for tests and benchmarks.
 */
static const char page_script[] =
	"(function(){'use strict';"
	"var W=1200,svg=document.getElementById('flamesvg');"
	"var frs=svg?Array.prototype.slice.call(svg.querySelectorAll('g.fr')):[];"
	"var fx=frs.map(function(g){return{g:g,x:+g.dataset.x,w:+g.dataset.w,d:+g.dataset.d,"
	"r:g.querySelector('rect'),t:g.querySelector('text'),"
	"n:g.querySelector('title').textContent.split('\\n')[0]};});"
	"function label(f,px){var c=Math.floor((px-6)/7);"
	"f.t.textContent=c<3?'':(f.n.length<=c?f.n:f.n.slice(0,c-2)+'..');}"
	"function zoom(z){fx.forEach(function(f){var e=1e-9,inside=f.x>=z.x-e&&"
	"f.x+f.w<=z.x+z.w+e&&f.d>=z.d,above=f.d<z.d&&f.x<=z.x+e&&f.x+f.w>=z.x+z.w-e;"
	"if(!inside&&!above){f.g.style.display='none';return;}"
	"f.g.style.display='';var x=inside?(f.x-z.x)/z.w*W:0,w=inside?f.w/z.w*W:W;"
	"f.r.setAttribute('x',x.toFixed(1));f.r.setAttribute('width',w.toFixed(1));"
	"f.t.setAttribute('x',(x+3).toFixed(1));label(f,w);"
	"f.g.classList.toggle('dim',above);});}"
	"fx.forEach(function(f){f.g.addEventListener('click',function(){zoom(f);});});"
	"var reset=document.getElementById('freset');"
	"if(reset)reset.addEventListener('click',function(){zoom({x:0,w:1,d:0});});"
	"var q=document.getElementById('fsearch'),m=document.getElementById('fmatch');"
	"if(q)q.addEventListener('input',function(){var s=q.value.toLowerCase(),n=0;"
	"fx.forEach(function(f){var hit=s!==''&&f.n.toLowerCase().indexOf(s)>=0;"
	"f.g.classList.toggle('hit',hit);if(hit)n++;});"
	"m.textContent=s?n+' frame'+(n===1?'':'s')+' match':'';});"
	"var why=document.getElementById('why'),sc=document.getElementById('scattersvg');"
	"if(sc)sc.addEventListener('click',function(e){var c=e.target.closest('.pt');"
	"if(c)why.textContent=c.querySelector('title').textContent;});"
	"document.body.setAttribute('data-ready-ms',performance.now().toFixed(0));"
	"document.body.setAttribute('data-js','ok');})();";

static void summary(FILE *f, const struct html_data *d)
{
	const struct agg *a = d->agg;
	char t0s[48], t1s[48];
	int64_t t0, t1;
	size_t i;

	html_span(d, &t0, &t1);
	fprintf(f,
		"<p>%" PRIu64 " outlier%s in the trace%s, %" PRIu64 " within the filters, from "
		"%s to %s UTC",
		a->seen, a->seen == 1 ? "" : "s", a->nr_hosts > 1 ? "s" : "", a->matched,
		html_time(t0, t0s, sizeof(t0s)), html_time(t1, t1s, sizeof(t1s)));
	if (a->nr_hosts) {
		fprintf(f, "; host%s: ", a->nr_hosts > 1 ? "s" : "");
		for (i = 0; i < a->nr_hosts; i++) {
			fprintf(f, "%s<b>", i ? ", " : "");
			html_text(f, a->hosts[i]->name, sizeof(a->hosts[i]->name));
			fprintf(f, "</b>");
		}
	}
	fprintf(f,
		".</p>\n<p><a href=\"#health\">health</a> · <a href=\"#scatter\">over time</a>"
		" · <a href=\"#flame\">flame graph</a> · <a href=\"#syscalls\">per syscall</a> · "
		"<a href=\"#top\">top outliers</a></p>\n");
}

static const struct html_host *html_host_of(const struct html_data *d, const struct agg_host *h)
{
	size_t i;

	for (i = 0; i < d->nr_hosts; i++)
		if (d->hosts[i].host == h)
			return &d->hosts[i];
	return NULL;
}

/* One row of the health table: a figure per host, side by side. */
#define HEALTH_ROW(f, a, d, label, expr)                                \
	do {                                                            \
		size_t i_;                                              \
		fprintf(f, "<tr><td>%s</td>", label);                   \
		for (i_ = 0; i_ < (a)->nr_hosts; i_++) {                \
			const struct agg_host *h = (a)->hosts[i_];      \
			const struct html_host *x = html_host_of(d, h); \
			(void)h;                                        \
			(void)x;                                        \
			fprintf(f, "<td>");                             \
			expr;                                           \
			fprintf(f, "</td>");                            \
		}                                                       \
		fprintf(f, "</tr>\n");                                  \
	} while (0)

static void health_cost(FILE *f, const struct html_data *d)
{
	const struct agg *a = d->agg;
	char b[16];

	HEALTH_ROW(f, a, d, "sclat's cost per syscall",
		   x && x->overhead_seen ? fprintf(f, "%" PRIu64 " ns", x->ns_per_syscall)
					 : fprintf(f, "not in the trace"));
	HEALTH_ROW(f, a, d, "explaining outliers (BPF + userspace)",
		   x && x->overhead_seen
			   ? fprintf(f, "%s",
				     html_dur(x->explain_bpf_ns + x->explain_user_ns, b, sizeof(b)))
			   : fprintf(f, "-"));
	HEALTH_ROW(f, a, d, "user stacks unwound / dropped",
		   x && x->overhead_seen ? fprintf(f, "%" PRIu64 " / %" PRIu64,
						   x->user_stacks_unwound, x->user_stacks_dropped)
					 : fprintf(f, "-"));
	HEALTH_ROW(f, a, d, "consumer lag, at most",
		   x && x->overhead_seen
			   ? fprintf(f, "%s", html_dur(x->consumer_lag_max_ns, b, sizeof(b)))
			   : fprintf(f, "-"));
}

void html_health(FILE *f, const struct html_data *d)
{
	const struct agg *a = d->agg;
	size_t i;

	fprintf(f, "<section id=\"health\"><h2>The run's health</h2>\n");
	for (i = 0; i < a->nr_warnings; i++) {
		fprintf(f, "<p class=\"warn\">TRACE INCOMPLETE: ");
		html_text(f, a->warnings[i], sizeof(a->warnings[i]));
		fprintf(f, ".</p>\n");
	}
	if (a->complete == AGG_UNKNOWN)
		fprintf(f, "<p class=\"warn\">Whether the trace is complete cannot be told: it was "
			   "written before sclat counted what it wrote (trace version 1).</p>\n");
	fprintf(f, "<table id=\"hosts\"><tr><th>host</th>");
	for (i = 0; i < a->nr_hosts; i++) {
		fprintf(f, "<th>");
		html_text(f, a->hosts[i]->name, sizeof(a->hosts[i]->name));
		fprintf(f, "</th>");
	}
	fprintf(f, "</tr>\n");
	HEALTH_ROW(f, a, d, "outliers in the trace", fprintf(f, "%" PRIu64, h->seen));
	HEALTH_ROW(f, a, d, "within the filters", fprintf(f, "%" PRIu64, h->matched));
	HEALTH_ROW(f, a, d, "dropped in the kernel", fprintf(f, "%" PRIu64, h->loss.drops));
	HEALTH_ROW(f, a, d, "throttled (budget, burst guard)",
		   fprintf(f, "%" PRIu64, h->loss.throttled));
	HEALTH_ROW(f, a, d, "discarded by LTTng",
		   fprintf(f, "%s%" PRIu64, h->loss.discarded_unknown ? "at least " : "",
			   h->loss.discarded));
	HEALTH_ROW(f, a, d, "packets missing", fprintf(f, "%" PRIu64, h->loss.discarded_packets));
	HEALTH_ROW(f, a, d, "explained outliers without a kernel stack",
		   fprintf(f, "%" PRIu64 " of %" PRIu64, x ? x->no_kernel_stack : 0,
			   x ? x->explained : 0));
	HEALTH_ROW(f, a, d, "explained outliers without a user stack",
		   fprintf(f, "%" PRIu64 " of %" PRIu64, x ? x->no_user_stack : 0,
			   x ? x->explained : 0));
	HEALTH_ROW(f, a, d, "kernel stacks skipped, wakers lost",
		   fprintf(f, "%" PRIu64 ", %" PRIu64, h->runs.totals.kernel_stacks_skipped,
			   h->runs.totals.wakers_lost));
	health_cost(f, d);
	fprintf(f,
		"</table>\n<p>%zu interval%s with throttling or drops%s; %zu call%s reported "
		"in flight.</p>\n</section>\n",
		d->nr_throttles, d->nr_throttles == 1 ? "" : "s",
		d->throttles_dropped ? " (more not marked)" : "", a->nr_hung,
		a->nr_hung == 1 ? "" : "s");
}

int render_html(FILE *f, const struct html_data *d)
{
	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width\">"
		"<title>sclat report</title>\n<style>%s</style></head>\n<body>\n"
		"<h1>sclat report</h1>\n",
		page_style);
	summary(f, d);
	html_health(f, d);
	html_scatter(f, d);
	html_flame(f, d);
	html_series_cards(f, d);
	html_top(f, d);
	fprintf(f, "<script>%s</script>\n</body></html>\n", page_script);
	return ferror(f) ? EIO : 0;
}
