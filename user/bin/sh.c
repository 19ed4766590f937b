/* fdkernel's shell: runs programs from $PATH (default /bin) with quoted
 * arguments, $?, < > >> redirections, | pipelines, ; lists, cd/pwd/exit. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_TOKENS 128
#define MAX_CMDS   16
#define MAX_ARGS   64
#define MAX_LINE   4096

enum kind { WORD, PIPE, IN, OUT, APPEND, SEMI };

struct token {
	enum kind kind;
	char *text; /* WORD only */
};

/* One program of a pipeline with its redirections. */
struct command {
	char *argv[MAX_ARGS + 1];
	int argc;
	const char *in, *out;
	int out_flags; /* O_TRUNC or O_APPEND */
};

/* Reads a line; words are copied, unquoted and expanded into OUT. */
struct lexer {
	const char *p;
	char *out;
};

struct builtin {
	const char *name;
	int (*fn)(struct command *c);
};

static int last_status;

static int syntax_error(const char *what)
{
	fprintf(stderr, "sh: syntax error: %s\n", what);
	return -1;
}

/* The operator at *P, consumed; WORD (nothing consumed) if there is none. */
static enum kind operator_at(const char **p)
{
	switch (*(*p)++) {
	case '|':
		return PIPE;
	case ';':
		return SEMI;
	case '<':
		return IN;
	case '>':
		if (**p != '>')
			return OUT;
		(*p)++;
		return APPEND;
	}
	(*p)--;
	return WORD;
}

/* Copy the word at L->p into L->out, removing quotes and expanding $? outside
 * single quotes.  Returns the copy, or NULL on an unterminated quote. */
static char *lex_word(struct lexer *l)
{
	char *start = l->out, quote = 0;
	for (char c; (c = *l->p); l->p++) {
		if (quote && c == quote) {
			quote = 0;
		} else if (!quote && (c == '\'' || c == '"')) {
			quote = c;
		} else if (!quote && (isspace((unsigned char)c) || strchr("|;<>", c))) {
			break;
		} else if (quote != '\'' && c == '$' && l->p[1] == '?') {
			l->out += sprintf(l->out, "%d", last_status);
			l->p++;
		} else {
			*l->out++ = c;
		}
	}
	*l->out++ = '\0';
	if (quote) {
		syntax_error("unterminated quote");
		return NULL;
	}
	return start;
}

/* Tokens up to the next ';' (consumed) or the end of the line; a '#' at the
 * start of a word comments out the rest.  Returns their number or -1. */
static int tokenize(struct lexer *l, struct token *t)
{
	int n = 0;
	for (;;) {
		while (isspace((unsigned char)*l->p))
			l->p++;
		if (*l->p == '#')
			l->p += strlen(l->p);
		if (!*l->p)
			return n;
		enum kind kind = operator_at(&l->p);
		if (kind == SEMI)
			return n;
		if (n == MAX_TOKENS)
			return syntax_error("too many words");
		t[n].kind = kind;
		t[n].text = NULL;
		if (kind == WORD && !(t[n].text = lex_word(l)))
			return -1;
		n++;
	}
}

/* Attach the redirection token T[0] with its target word T[1] to C. */
static int add_redirect(struct command *c, const struct token *t, int left)
{
	if (left < 2 || t[1].kind != WORD)
		return syntax_error("redirection without a file name");
	if (t[0].kind == IN) {
		c->in = t[1].text;
	} else {
		c->out = t[1].text;
		c->out_flags = t[0].kind == APPEND ? O_APPEND : O_TRUNC;
	}
	return 0;
}

/* Group N tokens into the commands of a pipeline.  Returns the number of
 * commands (0 for an empty line) or -1 after reporting a syntax error. */
static int parse_pipeline(const struct token *t, int n, struct command *cmds)
{
	int nc = 0;
	struct command *c = memset(&cmds[0], 0, sizeof cmds[0]);
	for (int i = 0; i < n; i++) {
		if (t[i].kind == WORD) {
			if (c->argc == MAX_ARGS)
				return syntax_error("too many arguments");
			c->argv[c->argc++] = t[i].text;
		} else if (t[i].kind == PIPE) {
			if (c->argc == 0 || ++nc == MAX_CMDS)
				return syntax_error(c->argc ? "pipeline too long"
							    : "empty command");
			c = memset(&cmds[nc], 0, sizeof cmds[nc]);
		} else if (add_redirect(c, &t[i], n - i) < 0) {
			return -1;
		} else {
			i++; /* the file name */
		}
	}
	if (c->argc == 0 && (nc > 0 || c->in || c->out))
		return syntax_error("empty command");
	return c->argc ? nc + 1 : 0;
}

/* Make FD (just opened for NAME) the descriptor TO; -1 after reporting. */
static int move_fd(int fd, int to, const char *name)
{
	if (fd >= 0 && fd != to && dup2(fd, to) < 0) {
		close(fd);
		fd = -1;
		name = "dup2";
	}
	if (fd < 0) {
		fprintf(stderr, "sh: %s: %s\n", name, strerror(errno));
		return -1;
	}
	if (fd != to)
		close(fd);
	return 0;
}

static int apply_redirects(const struct command *c)
{
	if (c->in && move_fd(open(c->in, O_RDONLY), 0, c->in) < 0)
		return -1;
	if (c->out && move_fd(open(c->out, O_WRONLY | O_CREAT | c->out_flags, 0666), 1, c->out) < 0)
		return -1;
	return 0;
}

static int builtin_cd(struct command *c)
{
	const char *dir = c->argc > 1 ? c->argv[1] : "/";
	if (chdir(dir) == 0)
		return 0;
	fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
	return 1;
}

static int builtin_pwd(struct command *c)
{
	char dir[PATH_MAX];
	(void)c;
	if (!getcwd(dir, sizeof dir)) {
		fprintf(stderr, "sh: pwd: %s\n", strerror(errno));
		return 1;
	}
	printf("%s\n", dir);
	fflush(stdout);
	return 0;
}

static int builtin_exit(struct command *c)
{
	exit(c->argc > 1 ? atoi(c->argv[1]) & 0xff : last_status);
}

static const struct builtin builtins[] = {
    {"cd", builtin_cd},
    {"exit", builtin_exit},
    {"pwd", builtin_pwd},
};

static const struct builtin *find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

/* Put back descriptor FD saved as SAVED (-1: it was not redirected). */
static void restore_fd(int saved, int fd)
{
	if (saved >= 0 && dup2(saved, fd) == fd)
		close(saved);
}

/* A builtin alone on its line runs in the shell, redirections undone after. */
static int run_builtin_here(const struct builtin *b, struct command *c)
{
	int saved_in = c->in ? dup(0) : -1, saved_out = c->out ? dup(1) : -1, status = 1;
	if ((c->in && saved_in < 0) || (c->out && saved_out < 0))
		fprintf(stderr, "sh: dup: %s\n", strerror(errno));
	else if (apply_redirects(c) == 0)
		status = b->fn(c);
	restore_fd(saved_in, 0);
	restore_fd(saved_out, 1);
	return status;
}

static _Noreturn void exec_failed(const char *name, int err, bool searched)
{
	if (err == ENOENT && searched)
		fprintf(stderr, "sh: %s: command not found\n", name);
	else
		fprintf(stderr, "sh: %s: %s\n", name, strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

/* execve ARGV[0] from each directory of $PATH in turn, like execvp. */
static _Noreturn void exec_from_path(char **argv)
{
	const char *dirs = getenv("PATH");
	char file[PATH_MAX];
	int err = ENOENT;
	if (!dirs || !*dirs)
		dirs = "/bin";
	while (*dirs) {
		int len = strcspn(dirs, ":");
		snprintf(file, sizeof file, "%.*s/%s", len, dirs, argv[0]);
		execve(file, argv, environ);
		if (errno != ENOENT)
			err = errno;
		dirs += len + (dirs[len] == ':');
	}
	exec_failed(argv[0], err, true);
}

/* Run C in this (forked) process: redirect, then a builtin or a program. */
static _Noreturn void exec_command(struct command *c)
{
	const struct builtin *b = find_builtin(c->argv[0]);
	if (apply_redirects(c) < 0)
		_exit(1);
	if (b)
		exit(b->fn(c));
	if (!strchr(c->argv[0], '/'))
		exec_from_path(c->argv);
	execve(c->argv[0], c->argv, environ);
	exec_failed(c->argv[0], errno, false);
}

/* The shell's status for a wait status; reports deaths by signal. */
static int decode_status(int status)
{
	if (!WIFSIGNALED(status))
		return WEXITSTATUS(status);
	if (WTERMSIG(status) != SIGPIPE)
		fprintf(stderr, "Killed by signal %d\n", WTERMSIG(status));
	return 128 + WTERMSIG(status);
}

/* Wait for the N started children; the status is the last one's. */
static int wait_all(const pid_t *pids, int n)
{
	int status = 0;
	for (int i = 0; i < n; i++) {
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
	}
	return decode_status(status);
}

/* Fork command I of the pipeline, reading from IN (-1: the shell's stdin)
 * and writing to PIPEFD[1] (-1: the shell's stdout). */
static pid_t start_command(struct command *c, int in, const int pipefd[2])
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	signal(SIGINT, SIG_DFL); /* the interactive shell ignores ^C; its children do not */
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if ((in >= 0 && move_fd(in, 0, "pipe") < 0) ||
	    (pipefd[1] >= 0 && move_fd(pipefd[1], 1, "pipe") < 0))
		_exit(1);
	exec_command(c);
}

static int run_pipeline(struct command *cmds, int n)
{
	const struct builtin *b = find_builtin(cmds[0].argv[0]);
	pid_t pids[MAX_CMDS];
	int in = -1, started = 0, failed = 0, status;
	if (n == 1 && b)
		return run_builtin_here(b, &cmds[0]);
	fflush(stdout);
	while (started < n && !failed) {
		int pipefd[2] = {-1, -1};
		if (started < n - 1 && pipe(pipefd) < 0)
			failed = errno;
		else if ((pids[started] = start_command(&cmds[started], in, pipefd)) < 0)
			failed = errno;
		else
			started++;
		if (in >= 0)
			close(in);
		if (pipefd[1] >= 0)
			close(pipefd[1]);
		in = pipefd[0];
	}
	if (in >= 0)
		close(in);
	if (failed)
		fprintf(stderr, "sh: %s\n", strerror(failed));
	status = wait_all(pids, started);
	return failed ? 1 : status;
}

/* Run each ';'-separated pipeline of LINE, updating $?. */
static void run_line(const char *line)
{
	char *arena = malloc(2 * strlen(line) + 2);
	struct lexer l = {line, arena};
	struct token toks[MAX_TOKENS];
	struct command cmds[MAX_CMDS];
	do {
		int n = tokenize(&l, toks);
		int nc = n < 0 ? -1 : parse_pipeline(toks, n, cmds);
		if (nc < 0) {
			last_status = 2;
			break;
		}
		if (nc > 0)
			last_status = run_pipeline(cmds, nc);
	} while (*l.p);
	free(arena);
}

/* Run each line of F (lines longer than MAX_LINE - 1 are cut in pieces). */
static int run_stream(FILE *f, bool prompt)
{
	char line[MAX_LINE];
	for (;;) {
		if (prompt) {
			fputs("fdk$ ", stdout);
			fflush(stdout);
		}
		if (!fgets(line, sizeof line, f))
			break;
		line[strcspn(line, "\n")] = '\0';
		run_line(line);
	}
	if (prompt)
		putchar('\n');
	return last_status;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int status;
	if (!f) {
		fprintf(stderr, "sh: %s: %s\n", path, strerror(errno));
		return 127;
	}
	fcntl(fileno(f), F_SETFD, FD_CLOEXEC);
	status = run_stream(f, false);
	fclose(f);
	return status;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "-c") == 0) {
		if (argc < 3) {
			fprintf(stderr, "sh: -c: option requires an argument\n");
			return 2;
		}
		run_line(argv[2]);
		return last_status;
	}
	if (argc > 1)
		return run_file(argv[1]);
	/* Interactive: ^C interrupts the running command, not the shell. */
	if (isatty(0))
		signal(SIGINT, SIG_IGN);
	return run_stream(stdin, isatty(0));
}
