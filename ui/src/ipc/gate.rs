//! The UI's first frame before its first reads. Every page asks the shell for its data as it
//! mounts; answered at once, those answers were handled and drawn before the window's first frame
//! of the UI, which then came one to three frames late. Calls made before [`first_frame_drawn`] wait for it and
//! then leave in the order they were made; [`first_frame_drawn`] is called once the first frame is on screen
//! (or after a moment, should the webview never draw, e.g. a window started hidden).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Calls held until the first frame: `None` once open.
struct Held(Option<Vec<Waker>>);

thread_local! {
    // The UI runs on the webview's one thread: a thread-local is the page's own state.
    static GATE: RefCell<Held> = const { RefCell::new(Held(Some(Vec::new()))) };
}

/// Lets the held calls go (in the order they were made) and every later one straight through.
/// Opening twice does nothing more.
pub fn first_frame_drawn() {
    let held = GATE.with(|gate| gate.borrow_mut().0.take());
    for waker in held.unwrap_or_default() {
        waker.wake();
    }
}

/// Ready once the gate is open.
pub(super) fn opened() -> Opened {
    Opened
}

pub(super) struct Opened;

impl Future for Opened {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        GATE.with(|gate| match gate.borrow_mut().0.as_mut() {
            None => Poll::Ready(()),
            Some(held) => {
                // Polled again before opening: the same task is held once.
                if !held.iter().any(|w| w.will_wake(cx.waker())) {
                    held.push(cx.waker().clone());
                }
                Poll::Pending
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::task::Wake;

    /// A waker that notes in `order` which call it woke.
    struct Noted(usize, Arc<Mutex<Vec<usize>>>, AtomicUsize);

    impl Wake for Noted {
        fn wake(self: Arc<Self>) {
            self.2.fetch_add(1, Ordering::SeqCst);
            self.1.lock().unwrap().push(self.0);
        }
    }

    #[test]
    fn calls_wait_for_the_first_frame_then_leave_in_order() {
        // A thread of its own: the gate is per thread, as in the page.
        std::thread::spawn(|| {
            let order = Arc::new(Mutex::new(Vec::new()));
            let wakers: Vec<Arc<Noted>> =
                (0..3).map(|i| Arc::new(Noted(i, order.clone(), AtomicUsize::new(0)))).collect();
            let mut calls: Vec<Opened> = (0..3).map(|_| opened()).collect();
            for (call, waker) in calls.iter_mut().zip(&wakers) {
                let waker = Waker::from(waker.clone());
                let mut cx = Context::from_waker(&waker);
                assert_eq!(Pin::new(&mut *call).poll(&mut cx), Poll::Pending);
                // Polled again while held: still pending, and held once.
                assert_eq!(Pin::new(&mut *call).poll(&mut cx), Poll::Pending);
            }
            assert!(order.lock().unwrap().is_empty(), "nothing leaves before the frame");

            first_frame_drawn();
            assert_eq!(*order.lock().unwrap(), vec![0, 1, 2]);
            assert!(wakers.iter().all(|w| w.2.load(Ordering::SeqCst) == 1), "each call woken once");
            let mut cx = Context::from_waker(Waker::noop());
            for call in &mut calls {
                assert_eq!(Pin::new(call).poll(&mut cx), Poll::Ready(()));
            }

            // Later calls go straight through; opening again wakes nobody twice.
            first_frame_drawn();
            assert_eq!(Pin::new(&mut opened()).poll(&mut cx), Poll::Ready(()));
            assert_eq!(order.lock().unwrap().len(), 3);
        })
        .join()
        .unwrap();
    }
}
