#define _GNU_SOURCE
#include "CProcessControl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif

int monitor_become_subreaper(void) {
#ifdef __linux__
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : errno;
#else
    return ENOSYS;
#endif
}

int monitor_spawn_detached(const char *path, char *const argv[], int input, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
#ifdef POSIX_SPAWN_SETSID
    flags |= POSIX_SPAWN_SETSID;
#else
    flags |= POSIX_SPAWN_SETPGROUP;
#endif
    char *const environment[] = {NULL};
    if ((result = posix_spawnattr_setflags(&attributes, flags)) == 0
        && (result = posix_spawnattr_setsigdefault(&attributes, &all)) == 0
        && (result = posix_spawnattr_setsigmask(&attributes, &none)) == 0
        && (result = posix_spawn_file_actions_adddup2(&actions, input, 0)) == 0
        && (result = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)) == 0
        && (result = posix_spawn_file_actions_adddup2(&actions, 1, 2)) == 0
#ifdef __linux__
        && (result = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) == 0
#endif
    ) {
        result = posix_spawn(pid, path, &actions, &attributes, argv, environment);
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}
