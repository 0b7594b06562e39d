/* A stand-in for wsl.exe, for the tests only (tests/wsl/wsl_server.py is the other half).

   One source, two builds: mingw makes a real Windows program (the Windows lane runs it under
   Wine, where a Linux program named wsl.exe cannot be used with pipes), gcc a Linux one (the
   Linux suite puts it first on PATH). It connects to 127.0.0.1 on the port in
   TENSORDECK_TEST_WSL_PORT, sends its arguments, its working folder and the variables WSLENV
   names, then relays its stdin to the server and the server's stdout/stderr data to its own,
   and exits with the status the server sends.

   Every message is a frame: one type byte, a 4-byte big-endian length, that many bytes.
     client -> server: ARGV (each argument in UTF-8, NUL-terminated), CWD (UTF-8),
                       ENV (WSLENV=<as set>, then NAME=VALUE of each variable it names, each
                       NUL-terminated; always sent, it ends the header), STDIN data, STDIN_EOF
     server -> client: STDOUT data, STDERR data, EXIT (4-byte big-endian status)
   When this program dies (TerminateProcess, kill -9) its socket closes: the server then closes
   the Linux command's stdin and leaves the command running, as real WSL does. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <shellapi.h>
typedef SOCKET sock_t;
#define SEND_FLAGS 0
#else
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
typedef int sock_t;
#define SEND_FLAGS MSG_NOSIGNAL
#endif

enum { ARGV = 1, CWD = 2, ENV = 3, STDIN_DATA = 4, STDIN_EOF = 5, STDOUT_DATA = 6,
       STDERR_DATA = 7, EXIT_STATUS = 8 };
#define CHUNK 65536
#define MAX_FRAME (1u << 24)
#define PORT_VARIABLE "TENSORDECK_TEST_WSL_PORT"

static sock_t server;

static void fail(const char *what) {
  fprintf(stderr, "wsl.exe stand-in: %s\n", what);
  fflush(stderr);
  exit(1);
}

/* A growing byte buffer for the header frames. */
typedef struct { char *data; size_t len, cap; } buffer;

static void put(buffer *b, const char *data, size_t len) {
  if (b->len + len > b->cap) {
    b->cap = (b->len + len) * 2 + 256;
    b->data = realloc(b->data, b->cap);
    if (!b->data) fail("out of memory");
  }
  memcpy(b->data + b->len, data, len);
  b->len += len;
}

static void put_text(buffer *b, const char *text) { put(b, text, strlen(text) + 1); }

static int send_all(const char *data, size_t len) {
  while (len > 0) {
    int n = send(server, data, (int)(len > CHUNK ? CHUNK : len), SEND_FLAGS);
    if (n <= 0) return -1;
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

static int recv_all(char *data, size_t len) {
  while (len > 0) {
    int n = recv(server, data, (int)(len > CHUNK ? CHUNK : len), 0);
    if (n <= 0) return -1;
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

static int send_frame(int type, const char *data, size_t len) {
  unsigned char head[5] = {(unsigned char)type, (unsigned char)(len >> 24),
                           (unsigned char)(len >> 16), (unsigned char)(len >> 8),
                           (unsigned char)len};
  if (send_all((const char *)head, 5) < 0) return -1;
  return len ? send_all(data, len) : 0;
}

/* ---- what differs between Windows and Linux ------------------------------------------- */

#ifdef _WIN32
static char *utf8(const wchar_t *text) {
  int size = WideCharToMultiByte(CP_UTF8, 0, text, -1, NULL, 0, NULL, NULL);
  char *out = malloc(size > 0 ? (size_t)size : 1);
  if (!out) fail("out of memory");
  if (size <= 0) { out[0] = 0; return out; }
  WideCharToMultiByte(CP_UTF8, 0, text, -1, out, size, NULL, NULL);
  return out;
}

static wchar_t *wide(const char *text) {
  int size = MultiByteToWideChar(CP_UTF8, 0, text, -1, NULL, 0);
  wchar_t *out = malloc(sizeof(wchar_t) * (size > 0 ? (size_t)size : 1));
  if (!out) fail("out of memory");
  if (size <= 0) { out[0] = 0; return out; }
  MultiByteToWideChar(CP_UTF8, 0, text, -1, out, size);
  return out;
}

/* A variable's value in UTF-8, or NULL when it is not set (Wine passes the caller's
   variables through; names ignore case, as on Windows). */
static char *variable(const char *name) {
  wchar_t *wname = wide(name);
  DWORD size = GetEnvironmentVariableW(wname, NULL, 0);
  if (size == 0) {
    int missing = GetLastError() == ERROR_ENVVAR_NOT_FOUND;
    free(wname);
    return missing ? NULL : utf8(L"");
  }
  wchar_t *value = malloc(sizeof(wchar_t) * size);
  if (!value) fail("out of memory");
  GetEnvironmentVariableW(wname, value, size);
  char *out = utf8(value);
  free(wname);
  free(value);
  return out;
}

static void put_arguments(buffer *b) {
  int count = 0;
  wchar_t **args = CommandLineToArgvW(GetCommandLineW(), &count);
  if (!args) fail("cannot read the command line");
  for (int i = 0; i < count; i++) {
    char *arg = utf8(args[i]);
    put_text(b, arg);
    free(arg);
  }
  LocalFree(args);
}

static char *working_folder(void) {
  DWORD size = GetCurrentDirectoryW(0, NULL);
  wchar_t *folder = malloc(sizeof(wchar_t) * (size + 1));
  if (!folder) fail("out of memory");
  GetCurrentDirectoryW(size + 1, folder);
  char *out = utf8(folder);
  free(folder);
  return out;
}

static void connect_socket(unsigned short port) {
  WSADATA wsa;
  if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0) fail("WSAStartup failed");
  server = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
  if (server == INVALID_SOCKET) fail("cannot make a socket");
  struct sockaddr_in address = {0};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(server, (struct sockaddr *)&address, sizeof address) != 0)
    fail("cannot connect to the test server (is it running?)");
  BOOL on = TRUE;
  setsockopt(server, IPPROTO_TCP, TCP_NODELAY, (const char *)&on, sizeof on);
}

static long read_stdin(char *data, size_t len) {
  DWORD got = 0;
  HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
  if (in == NULL || in == INVALID_HANDLE_VALUE) return 0;
  if (!ReadFile(in, data, (DWORD)len, &got, NULL)) return 0; /* broken pipe: EOF */
  return (long)got;
}

static void write_out(int stream, const char *data, size_t len) {
  HANDLE out = GetStdHandle(stream == 2 ? STD_ERROR_HANDLE : STD_OUTPUT_HANDLE);
  while (len > 0) {
    DWORD put = 0;
    if (out == NULL || out == INVALID_HANDLE_VALUE || !WriteFile(out, data, (DWORD)len, &put, NULL))
      return; /* nobody reads it any more: dropped, as a console program's output would be */
    data += put;
    len -= put;
  }
}

static DWORD WINAPI stdin_thread(LPVOID unused);
static void start_stdin_pump(void) {
  HANDLE thread = CreateThread(NULL, 0, stdin_thread, NULL, 0, NULL);
  if (!thread) fail("cannot start a thread");
  CloseHandle(thread);
}

static void leave(uint32_t status) { ExitProcess(status); }

#else /* Linux */

static char *variable(const char *name) {
  const char *value = getenv(name);
  return value ? strdup(value) : NULL;
}

static int saved_argc;
static char **saved_argv;

static void put_arguments(buffer *b) {
  for (int i = 0; i < saved_argc; i++) put_text(b, saved_argv[i]);
}

static char *working_folder(void) {
  size_t size = 4096;
  for (;;) {
    char *folder = malloc(size);
    if (!folder) fail("out of memory");
    if (getcwd(folder, size)) return folder;
    free(folder);
    size *= 2;
    if (size > (1u << 20)) fail("cannot read the working folder");
  }
}

static void connect_socket(unsigned short port) {
  signal(SIGPIPE, SIG_IGN);
  server = socket(AF_INET, SOCK_STREAM, 0);
  if (server < 0) fail("cannot make a socket");
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(server, (struct sockaddr *)&address, sizeof address) != 0)
    fail("cannot connect to the test server (is it running?)");
  int on = 1;
  setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

static long read_stdin(char *data, size_t len) {
  for (;;) {
    ssize_t n = read(0, data, len);
    if (n >= 0) return (long)n;
    if (errno == EINTR) continue;
    return 0;
  }
}

static void write_out(int stream, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = write(stream == 2 ? 2 : 1, data, len);
    if (n <= 0) return; /* nobody reads it any more: dropped */
    data += n;
    len -= (size_t)n;
  }
}

static void *stdin_thread(void *unused);
static void start_stdin_pump(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, stdin_thread, NULL) != 0) fail("cannot start a thread");
  pthread_detach(thread);
}

static void leave(uint32_t status) { _exit((int)(status & 0xFF)); }
#endif

/* ---- the relay -------------------------------------------------------------------------- */

#ifdef _WIN32
static DWORD WINAPI stdin_thread(LPVOID unused)
#else
static void *stdin_thread(void *unused)
#endif
{
  (void)unused;
  static char data[CHUNK];
  long n;
  while ((n = read_stdin(data, sizeof data)) > 0)
    if (send_frame(STDIN_DATA, data, (size_t)n) < 0) return 0;
  send_frame(STDIN_EOF, NULL, 0);
  return 0;
}

/* WSLENV: NAME/flags:NAME2...; the server reads the flags from the WSLENV entry itself. */
static void put_environment(buffer *b) {
  char *wslenv = variable("WSLENV");
  if (!wslenv) {
    put_text(b, "WSLENV=");
    return;
  }
  buffer entry = {0};
  put(&entry, "WSLENV=", 7);
  put_text(&entry, wslenv);
  put(b, entry.data, entry.len);
  for (char *name = strtok(wslenv, ":"); name; name = strtok(NULL, ":")) {
    char *slash = strchr(name, '/');
    if (slash) *slash = 0;
    char *value = *name ? variable(name) : NULL;
    if (!value) continue;
    entry.len = 0;
    put(&entry, name, strlen(name));
    put(&entry, "=", 1);
    put_text(&entry, value);
    put(b, entry.data, entry.len);
    free(value);
  }
  free(entry.data);
  free(wslenv);
}

static void send_header(void) {
  buffer b = {0};
  put_arguments(&b);
  if (send_frame(ARGV, b.data, b.len) < 0) fail("the server closed the connection");
  char *folder = working_folder();
  b.len = 0;
  put(&b, folder, strlen(folder));
  free(folder);
  if (send_frame(CWD, b.data, b.len) < 0) fail("the server closed the connection");
  b.len = 0;
  put_environment(&b);
  if (send_frame(ENV, b.data, b.len) < 0) fail("the server closed the connection");
  free(b.data);
}

static void relay_output(void) {
  char *data = malloc(CHUNK);
  size_t cap = CHUNK;
  if (!data) fail("out of memory");
  for (;;) {
    unsigned char head[5];
    if (recv_all((char *)head, 5) < 0) fail("the server closed the connection");
    uint32_t len = ((uint32_t)head[1] << 24) | ((uint32_t)head[2] << 16) |
                   ((uint32_t)head[3] << 8) | head[4];
    if (len > MAX_FRAME) fail("the server sent an oversized frame");
    if (len > cap) {
      cap = len;
      data = realloc(data, cap);
      if (!data) fail("out of memory");
    }
    if (len && recv_all(data, len) < 0) fail("the server closed the connection");
    if (head[0] == STDOUT_DATA || head[0] == STDERR_DATA) {
      write_out(head[0] == STDERR_DATA ? 2 : 1, data, len);
    } else if (head[0] == EXIT_STATUS && len == 4) {
      unsigned char *s = (unsigned char *)data;
      leave(((uint32_t)s[0] << 24) | ((uint32_t)s[1] << 16) | ((uint32_t)s[2] << 8) | s[3]);
    } else {
      fail("the server sent an unknown frame");
    }
  }
}

int main(int argc, char **argv) {
#ifndef _WIN32
  saved_argc = argc;
  saved_argv = argv;
#else
  (void)argc;
  (void)argv;
#endif
  char *port = variable(PORT_VARIABLE);
  long number = port ? strtol(port, NULL, 10) : 0;
  if (number <= 0 || number > 65535) fail(PORT_VARIABLE " is not set to the test server's port");
  free(port);
  connect_socket((unsigned short)number);
  send_header();
  start_stdin_pump();
  relay_output();
  return 1;
}
