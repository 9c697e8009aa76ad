// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat top on a full screen (ncurses): a frame every delay, keys read while
 * it waits and while a frame is fetched, and one way out that restores the
 * terminal, whatever ends it: q, a signal, the tracer gone, an error. What
 * is said on stderr meanwhile is kept, and said once the terminal is back.
 */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "top.h"
#include "top_fetch.h"
#include "top_render.h"
#include "util/clock.h"
#include "util/log.h"

struct screen {
	const struct top_opts *o;
	struct top_view *view;
	int y;			/* the next line drawn */
	bool quit;		/* q */
	int stderr_fd, kept_fd; /* the real stderr, and where it goes meanwhile (-1: none) */
	SCREEN *term;
};

static void line_draw(void *ctx, enum top_style style, const char *text, int mark, int mark_len)
{
	struct screen *s = ctx;
	int attr = style == TOP_STYLE_HEAD ? A_REVERSE : style == TOP_STYLE_TITLE ? A_BOLD : 0;

	if (s->y >= LINES)
		return;
	attrset(attr);
	mvaddnstr(s->y, 0, text, COLS);
	/* The head's reverse video across the screen. */
	if (style == TOP_STYLE_HEAD)
		for (int x = (int)strlen(text); x < COLS; x++)
			mvaddch(s->y, x, ' ');
	if (mark_len && mark < COLS) {
		attrset(attr | A_BOLD | A_UNDERLINE);
		mvaddnstr(s->y, mark, text + mark, mark_len < COLS - mark ? mark_len : COLS - mark);
	}
	attrset(A_NORMAL);
	s->y++;
}

static void screen_draw(struct screen *s)
{
	erase();
	s->y = 0;
	top_render(s->view, s->o->delay_ms, LINES, line_draw, s);
	refresh();
}

/* The keys typed so far; true when top is to end (q, or a signal). */
static bool keys_take(void *ctx)
{
	struct screen *s = ctx;
	bool changed = false;
	int key;

	while (!s->quit && (key = getch()) != ERR) {
		if (key == 'q' || key == 'Q')
			s->quit = true;
		else if (key == KEY_RESIZE)
			changed = true;
		else if (top_view_key(s->view, key))
			changed = true;
	}
	if (s->quit || top_signal_caught())
		return true;
	if (changed && s->view->cur) {
		top_view_update(s->view);
		screen_draw(s);
	}
	return false;
}

/* stderr into a file of its own while the screen is up; said after (stderr_restore). */
static void stderr_keep(struct screen *s)
{
	fflush(stderr);
	s->kept_fd = memfd_create("sclat-top-stderr", MFD_CLOEXEC);
	s->stderr_fd = s->kept_fd >= 0 ? dup(STDERR_FILENO) : -1;
	if (s->stderr_fd < 0 || dup2(s->kept_fd, STDERR_FILENO) < 0) {
		if (s->stderr_fd >= 0)
			close(s->stderr_fd);
		if (s->kept_fd >= 0)
			close(s->kept_fd);
		s->stderr_fd = s->kept_fd = -1;
	}
}

static void stderr_restore(struct screen *s)
{
	char buf[4096];
	ssize_t n;

	if (s->kept_fd < 0)
		return;
	fflush(stderr);
	dup2(s->stderr_fd, STDERR_FILENO);
	close(s->stderr_fd);
	lseek(s->kept_fd, 0, SEEK_SET);
	while ((n = read(s->kept_fd, buf, sizeof(buf))) > 0)
		if (write(STDERR_FILENO, buf, n) != n)
			break;
	close(s->kept_fd);
	s->kept_fd = -1;
}

/* The screen, or -1 after one line on stderr: a terminal curses does not know (TERM). */
static int screen_open(struct screen *s)
{
	const char *term = getenv("TERM");

	setlocale(LC_ALL, "");
	/* newterm, not initscr, which would exit on a terminal it does not know. */
	s->term = newterm(NULL, stdout, stdin);
	if (!s->term) {
		log_err("cannot drive the terminal (TERM=%s): use --batch", term ? term : "");
		return -1;
	}
	stderr_keep(s);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	return 0;
}

/* Frames every delay until q, a signal or an error: 0, or 1 after an error. */
static int screen_loop(struct screen *s, struct control_target *t, int sig_fd)
{
	int fds[2] = { STDIN_FILENO, sig_fd }, ret;
	struct top_fetch_wait w = { .fds = fds, .nr_fds = 2, .interrupt = keys_take, .ctx = s };
	__u64 next = clock_ns(CLOCK_MONOTONIC) + s->o->delay_ms * 1000000ULL, now;
	struct top_frame *f;
	long shown = 1;

	screen_draw(s);
	for (;;) {
		struct pollfd pfd[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
					 { .fd = sig_fd, .events = POLLIN } };

		if (keys_take(s))
			return 0;
		if (s->o->iterations && shown >= s->o->iterations)
			return 0;
		now = clock_ns(CLOCK_MONOTONIC);
		if (now < next) {
			poll(pfd, 2, (int)((next - now) / 1000000) + 1);
			continue;
		}
		f = top_view_next(s->view);
		ret = top_fetch(t, &w, f);
		if (ret == -EINTR)
			return 0;
		if (ret)
			return 1;
		top_view_take(s->view, f);
		screen_draw(s);
		shown++;
		next = clock_ns(CLOCK_MONOTONIC) + s->o->delay_ms * 1000000ULL;
	}
}

int top_screen_run(const struct top_opts *o)
{
	struct screen s = { .o = o, .view = top_view_new(), .kept_fd = -1 };
	struct control_target t = o->target;
	int sig_fd = top_signals_open(), ret = 1;
	struct top_frame *f;

	if (!s.view || sig_fd < 0) {
		log_err("%s", strerror(ENOMEM));
		goto out;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		log_err("sclat top needs a terminal: use --batch for plain text frames");
		goto out;
	}
	/* The first frame before the screen: a missing tracer is said plainly. */
	f = top_view_next(s.view);
	if (top_fetch(&t, NULL, f))
		goto out;
	/* Later frames go to the tracer that answered first: if it goes, top ends. */
	if (!t.pid && !t.socket)
		t.pid = f->pid;
	top_view_take(s.view, f);
	if (screen_open(&s))
		goto out;
	ret = screen_loop(&s, &t, sig_fd);
	endwin();
	delscreen(s.term);
	stderr_restore(&s);
out:
	if (!ret && top_signal_caught())
		ret = 128 + top_signal_caught();
	top_signals_close();
	top_view_free(s.view);
	return ret;
}
