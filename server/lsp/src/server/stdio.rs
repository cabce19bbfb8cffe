//! The server's stdin and stdout. Where they are pipes (as editors start language
//! servers) they are read and written through the runtime's event loop: tokio's own
//! `stdin()`/`stdout()` hand every read and write to a blocking thread and back, thread
//! wake-ups that cost about a third of the keystroke latency of a typical manifest
//! (measured over stdio, docs/performance.md). Anything else (a file, a socket, a
//! terminal) uses tokio's.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;

pub fn input() -> Box<dyn AsyncRead + Unpin + Send> {
    match event_loop_pipe(std::io::stdin().as_fd(), pipe::Receiver::from_owned_fd) {
        Some(pipe) => Box::new(pipe),
        None => Box::new(tokio::io::stdin()),
    }
}

pub fn output() -> Box<dyn AsyncWrite + Unpin + Send> {
    match event_loop_pipe(std::io::stdout().as_fd(), pipe::Sender::from_owned_fd) {
        Some(pipe) => Box::new(pipe),
        None => Box::new(tokio::io::stdout()),
    }
}

/// `fd` (a copy of it) registered with the runtime, if it is a pipe. On failure the
/// descriptor is left in blocking mode, as tokio's fallback needs it.
fn event_loop_pipe<P>(fd: BorrowedFd, register: impl FnOnce(OwnedFd) -> io::Result<P>) -> Option<P> {
    let raw = std::os::fd::AsRawFd::as_raw_fd(&fd);
    match fd.try_clone_to_owned().and_then(register) {
        Ok(pipe) => Some(pipe),
        Err(_) => {
            // SAFETY: fcntl on a descriptor this process has open; no memory is passed.
            unsafe {
                let flags = libc::fcntl(raw, libc::F_GETFL);
                if flags >= 0 && flags & libc::O_NONBLOCK != 0 {
                    libc::fcntl(raw, libc::F_SETFL, flags & !libc::O_NONBLOCK);
                }
            }
            None
        }
    }
}
