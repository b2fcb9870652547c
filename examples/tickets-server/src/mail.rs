//! The customer emails: delivered from the runtime's outbox after their ticket committed.
//!
//! `tickets_create` writes the email as an outbox message in the same transaction as the
//! ticket, so an email exists exactly when its ticket does. This deliverer sends what is
//! waiting, at least once: a crash after sending and before marking it sent sends it again
//! on restart, with the same message id, which a real mail service takes as its
//! idempotency key to send it once.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use toolspec_runtime::engine::Runtime;
use toolspec_runtime::store::OutboxMessage;

/// How often the outbox is looked at.
const EVERY: Duration = Duration::from_millis(200);

/// Delivers the outbox forever. With `mailbox`, each email is appended to that file as one
/// JSON line `{"id", "to", "ticket_id", "subject"}` (standing in for the mail service);
/// without it, it is logged to standard error.
pub async fn deliver_emails(runtime: Runtime, mailbox: Option<PathBuf>) {
    loop {
        let sent = runtime
            .deliver_outbox(64, |message| {
                let mailbox = mailbox.clone();
                async move { send(&message, mailbox.as_ref()) }
            })
            .await;
        if let Err(e) = sent {
            eprintln!("tickets-server: outbox: {}", e.message);
        }
        tokio::time::sleep(EVERY).await;
    }
}

fn send(message: &OutboxMessage, mailbox: Option<&PathBuf>) -> bool {
    let mut line = message.payload.clone();
    if let Some(map) = line.as_object_mut() {
        map.insert("id".into(), message.id.clone().into());
    }
    match mailbox {
        None => {
            eprintln!("tickets-server: email {line}");
            true
        }
        Some(path) => std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            // One write of the whole line: with `writeln!` the newline is a second system
            // call, and a kill between the two left a line that the next one ran into.
            .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()))
            .map_err(|e| eprintln!("tickets-server: mailbox {}: {e}", path.display()))
            .is_ok(),
    }
}
