//! The same gauntlet through the macro's other entry: an `async` fixture and an explicit
//! executor (a tokio current-thread runtime per call), as an implementation that needs a
//! reactor would use it.

use crate::broken;

use broken::Desk;
use toolspec_compile_check::tickets::TicketsServer;
use toolspec_runtime::engine::Runtime;

include!(concat!(env!("OUT_DIR"), "/tickets_gauntlet.rs"));

async fn fixture(runtime: Runtime) -> TicketsServer<Desk> {
    tokio::task::yield_now().await;
    TicketsServer::new(Desk::demo(), runtime)
}

tickets_gauntlet!(
    async fixture,
    executor = |future| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(future)
    }
);
