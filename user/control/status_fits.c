// SPDX-License-Identifier: GPL-2.0-only
/* The fit behind each threshold, in `sclat status` (status_fits.h). */
#include "status_fits.h"
#include "util/duration.h"
#include "util/escape.h"
#include "util/syscall_names.h"

void status_basis_json(const struct syscall_status *s, FILE *f)
{
	const struct basis_fit *fit = &s->basis.w.fit;

	fprintf(f, ",\"learned_ns\":");
	if (s->learned_ns == SCLAT_THRESHOLD_NEVER)
		fprintf(f, "null");
	else
		fprintf(f, "%llu", (unsigned long long)s->learned_ns);
	fprintf(f,
		",\"target_rate\":%.6g,\"io_share\":%.6g,\"io_ns\":%llu,\"fit\":", s->basis.w.rate,
		s->basis.w.io_share, (unsigned long long)s->basis.w.io_ns);
	if (!fit->ok) {
		fprintf(f, "null");
		return;
	}
	fprintf(f,
		"{\"start_ns\":%llu,\"share\":%.6g,\"above\":%.1f,\"shape\":%.6g,"
		"\"scale_ns\":%.1f,\"apart_ns\":%llu,\"apart_share\":%.6g,\"far_ns\":%llu,"
		"\"censored\":%.1f}",
		(unsigned long long)fit->start_ns, fit->share, fit->above, fit->shape,
		fit->scale_ns, (unsigned long long)fit->apart_ns, fit->apart_share,
		(unsigned long long)fit->far_ns, fit->censored);
}

/* "read  tail from 12.1us (1.02 % of calls, 2000 above), shape 0.12, scale 3.2us: 1e-05" */
static void fit_line(const struct syscall_status *s, const char *class_name, FILE *f)
{
	const struct basis_fit *fit = &s->basis.w.fit;
	char name[32], start[16], scale[16], cls[TEXT_ESCAPED_SIZE(BASIS_CLASS_MAX)];

	fprintf(f,
		"%-15.15s tail from %s (%.2f %% of calls, %.0f above), shape %.3f, scale %s, "
		"aims at %.3g",
		syscall_label(s->nr, "(other)", name, sizeof(name)),
		duration_format(fit->start_ns, start, sizeof(start)), 100 * fit->share, fit->above,
		fit->shape, duration_format((__u64)(fit->scale_ns + 0.5), scale, sizeof(scale)),
		s->basis.w.rate);
	if (fit->apart_ns)
		fprintf(f, "; apart from %s: %.3g %% of calls, left out",
			duration_format(fit->apart_ns, start, sizeof(start)),
			100 * fit->apart_share);
	if (fit->far_ns)
		fprintf(f, "; stalls far from %s",
			duration_format(fit->far_ns, start, sizeof(start)));
	if (fit->censored > 0)
		fprintf(f, "; %.0f of them past the threshold, not learnt (censored)",
			fit->censored);
	if (s->basis.w.io_ns)
		fprintf(f, "; waits for storage %.3g %% of calls, stalls from %s",
			100 * s->basis.w.io_share,
			duration_format(s->basis.w.io_ns, start, sizeof(start)));
	if (class_name)
		fprintf(f, "  %s", text_escape(class_name, BASIS_CLASS_MAX, cls, sizeof(cls)));
	fprintf(f, "\n");
}

void status_fits_text(const struct controller_status *st, FILE *f)
{
	bool head = false;
	unsigned int i;

	for (i = 0; i < st->nr_syscalls && i <= SCLAT_MAX_SYSCALLS; i++) {
		const struct syscall_status *s = &st->syscalls[i];

		if (!s->basis.w.fit.ok)
			continue;
		if (!head)
			fprintf(f, "\nfitted tails (false_alarm: the threshold is the latency a "
				   "normal call exceeds at the rate it aims at)\n");
		head = true;
		fit_line(s, NULL, f);
	}
	for (i = 0; i < st->nr_classes && i < CONTROLLER_STATUS_CLASSES; i++) {
		const struct syscall_status *c = &st->classes[i].s;

		if (!c->basis.w.fit.ok || st->classes[i].fallback)
			continue;
		if (!head)
			fprintf(f, "\nfitted tails (false_alarm: the threshold is the latency a "
				   "normal call exceeds at the rate it aims at)\n");
		head = true;
		fit_line(c, c->basis.class_name, f);
	}
}
