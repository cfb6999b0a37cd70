#include "peers/peer_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/affinity.h"

typedef struct {
    char *buf;
    size_t len, cap;
} sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Read what is there; returns 1 at end of stream, 0 otherwise. */
static int drain(int fd, sink *s)
{
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0) return errno == EINTR || errno == EAGAIN ? 0 : 1;
    if (n == 0) return 1;
    size_t keep = s->len + (size_t)n <= BB_EXEC_MAX_OUTPUT ? (size_t)n : BB_EXEC_MAX_OUTPUT - s->len;
    if (keep && s->len + keep + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap < s->len + keep + 1) cap *= 2;
        char *b = realloc(s->buf, cap);
        if (!b) return 0; /* keep reading so the program is not blocked; drop the bytes */
        s->buf = b;
        s->cap = cap;
    }
    if (keep && s->cap >= s->len + keep + 1) {
        memcpy(s->buf + s->len, chunk, keep);
        s->len += keep;
    }
    return 0;
}

/* The CPUs a child may use: the list given, else the process's start-up mask (support/affinity.h;
 * read before the pool bound the calling thread). */
static void child_cpus(const int *cpus, int ncpus, cpu_set_t *set)
{
    CPU_ZERO(set);
    for (int i = 0; i < ncpus; i++)
        if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE) CPU_SET(cpus[i], set);
    for (int c = 0; ncpus <= 0 && c <= BB_AFFINITY_MAX_CPU && c < CPU_SETSIZE; c++)
        if (bb_affinity_allows(c)) CPU_SET(c, set);
}

void bb_exec_cpus_text(const int *cpus, int ncpus, char *buf, size_t len)
{
    cpu_set_t set;
    child_cpus(cpus, ncpus, &set);
    size_t o = 0;
    buf[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && o < len; c++)
        if (CPU_ISSET(c, &set)) {
            int n = snprintf(buf + o, len - o, "%s%d", o ? ";" : "", c);
            if (n < 0 || (size_t)n >= len - o) break;
            o += (size_t)n;
        }
}

/* A child inherits the CPU affinity of the thread that forks it, and the sweep's calling thread
 * is bound to one core by its pool: without this, all of a peer's threads would share that core
 * (a 2-thread llama-bench ran at its 1-thread speed).  So it is given its CPUs (child_cpus): those
 * bitbench itself may use, not every CPU of the machine. */
static void child(char *const argv[], int out, int err, int status_pipe, const cpu_set_t *cpus)
{
    setpgid(0, 0);
    sched_setaffinity(0, sizeof *cpus, cpus);
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    execv(argv[0], argv);
    int e = errno;
    ssize_t w = write(status_pipe, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* 0 when the program started; else its exec errno. */
static int exec_errno(int status_pipe)
{
    int e = 0;
    ssize_t n;
    do n = read(status_pipe, &e, sizeof e);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof e ? e : 0;
}

static void finish_sink(sink *s)
{
    if (!s->buf) s->buf = malloc(1);
    if (s->buf) s->buf[s->len] = 0;
}

/* Poll both pipes until both close or the deadline passes; then end the group if still running. */
static void collect(pid_t pid, int out_fd, int err_fd, double timeout_s, bb_exec_result *r)
{
    sink so = {0}, se = {0};
    double t0 = now_s(), kill_at = timeout_s > 0 ? t0 + timeout_s : 0;
    struct pollfd fds[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = err_fd, .events = POLLIN}};
    int open_fds = 2, term_sent = 0;
    while (open_fds) {
        int wait_ms = -1;
        if (kill_at > 0) {
            double left = kill_at - now_s();
            if (left <= 0) {
                /* the limit: TERM to the group, KILL a second later (the pipes close with it) */
                r->timed_out = true;
                kill(-pid, term_sent ? SIGKILL : SIGTERM);
                term_sent++;
                kill_at = now_s() + 1.0;
                if (term_sent > 2) break;
                continue;
            }
            wait_ms = (int)(left * 1000.0) + 1;
        }
        int n = poll(fds, 2, wait_ms);
        if (n < 0 && errno != EINTR) break;
        for (int i = 0; i < 2 && n > 0; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (drain(fds[i].fd, i == 0 ? &so : &se)) {
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int status = 0;
    if (r->timed_out) kill(-pid, SIGKILL); /* whatever of the group is left */
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r->seconds = now_s() - t0;
    r->exited = WIFEXITED(status) && !r->timed_out;
    r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    finish_sink(&so);
    finish_sink(&se);
    r->out = so.buf;
    r->out_len = so.len;
    r->err = se.buf;
    r->err_len = se.len;
}

int bb_exec_capture(char *const argv[], double timeout_s, const int *cpus, int ncpus, bb_exec_result *r, char *err,
                    size_t errlen)
{
    memset(r, 0, sizeof *r);
    int out[2], errp[2], st[2];
    if (pipe(out)) goto pipe_failed;
    if (pipe(errp)) {
        close(out[0]);
        close(out[1]);
        goto pipe_failed;
    }
    if (pipe2(st, O_CLOEXEC)) {
        close(out[0]);
        close(out[1]);
        close(errp[0]);
        close(errp[1]);
        goto pipe_failed;
    }
    cpu_set_t set;
    child_cpus(cpus, ncpus, &set); /* before fork: the child keeps to async-signal-safe calls */
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        close(errp[0]);
        close(st[0]);
        child(argv, out[1], errp[1], st[1], &set);
    }
    close(out[1]);
    close(errp[1]);
    close(st[1]);
    if (pid < 0) {
        snprintf(err, errlen, "cannot start %s: fork: %s", argv[0], strerror(errno));
        close(out[0]);
        close(errp[0]);
        close(st[0]);
        return -1;
    }
    setpgid(pid, pid); /* also here, so that a kill right after fork reaches the group */
    int e = exec_errno(st[0]);
    close(st[0]);
    if (e) {
        close(out[0]);
        close(errp[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
        return -1;
    }
    collect(pid, out[0], errp[0], timeout_s, r);
    close(out[0]);
    close(errp[0]);
    if (!r->out || !r->err) {
        bb_exec_result_free(r);
        snprintf(err, errlen, "out of memory for the output of %s", argv[0]);
        return -1;
    }
    return 0;

pipe_failed:
    snprintf(err, errlen, "cannot start %s: pipe: %s", argv[0], strerror(errno));
    return -1;
}

void bb_exec_result_free(bb_exec_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* The last non-empty line of text, at most len-1 bytes. */
static void last_line(const char *text, char *buf, size_t len)
{
    buf[0] = 0;
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ')) end--;
    const char *start = end;
    while (start > text && start[-1] != '\n') start--;
    size_t n = (size_t)(end - start);
    if (n >= len) n = len - 1;
    memcpy(buf, start, n);
    buf[n] = 0;
}

void bb_exec_describe(const bb_exec_result *r, double timeout_s, char *buf, size_t len)
{
    char how[64], said[200];
    if (r->timed_out)
        snprintf(how, sizeof how, "timed out after %g s", timeout_s);
    else if (r->exited)
        snprintf(how, sizeof how, "exited with status %d", r->exit_code);
    else
        snprintf(how, sizeof how, "killed by signal %d", r->signal);
    last_line(r->err ? r->err : "", said, sizeof said);
    if (!said[0]) last_line(r->out ? r->out : "", said, sizeof said);
    if (said[0])
        snprintf(buf, len, "%s: \"%s\"", how, said);
    else
        snprintf(buf, len, "%s", how);
}
