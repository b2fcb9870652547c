use super::*;
use rmcp::model::ErrorCode;
use serde_json::json;
use std::time::Duration;
use toolspec_core::clock::ManualClock;

const HOUR: Duration = Duration::from_secs(3600);

fn runtime() -> (Runtime, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let runtime = Runtime::in_memory().unwrap().with_clock(clock.clone());
    (runtime, clock)
}

async fn started(runtime: &Runtime, running: &Running, caller: Option<&Caller>) -> Started {
    start(
        runtime,
        running,
        "t_export",
        false,
        &json!({}),
        caller,
        None,
        HOUR,
    )
    .await
    .unwrap_or_else(|_| panic!("not started"))
}

#[tokio::test]
async fn a_task_is_its_callers_alone() {
    let (runtime, _) = runtime();
    let running = Running::default();
    let alice = Caller::new("https://auth.example.com", "alice");
    let bob = Caller::new("https://auth.example.com", "bob");
    let task = started(&runtime, &running, Some(&alice)).await;
    let id = task.handle.task.task_id.clone();
    assert!(!id.contains('@'), "the id shown holds no caller tag: {id}");

    let mine = get(&runtime, Some(&alice), &id).await.unwrap();
    assert_eq!(mine.task.status(), WireStatus::Working);
    assert_eq!(mine.task.task.task_id, id);
    let forged = format!("{id}@{}", alice.tag());
    for (who, asked) in [(Some(&bob), &id), (None, &id), (Some(&bob), &forged)] {
        let refused = get(&runtime, who, asked).await.unwrap_err();
        assert_eq!(
            refused.code,
            ErrorCode::INVALID_PARAMS,
            "{asked} for {who:?}"
        );
        let refused = cancel(&runtime, &running, who, asked).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::INVALID_PARAMS);
    }
    assert!(
        !task.keeper.cancel.is_cancelled(),
        "another caller's cancel did nothing"
    );
}

#[tokio::test]
async fn a_cancel_on_the_replica_running_the_task_stops_its_call_at_once() {
    let (runtime, _) = runtime();
    let running = Running::default();
    let task = started(&runtime, &running, None).await;
    let id = task.handle.task.task_id.clone();
    cancel(&runtime, &running, None, &id).await.unwrap();
    assert!(task.keeper.cancel.is_cancelled());
    let after = get(&runtime, None, &id).await.unwrap();
    assert_eq!(after.task.status(), WireStatus::Cancelled);
    // What the stopped call answers afterwards does not undo the cancel.
    task.keeper
        .settle(CallToolResponse::Complete(
            rmcp::model::CallToolResult::success(vec![]),
        ))
        .await;
    let settled = get(&runtime, None, &id).await.unwrap();
    assert_eq!(settled.task.status(), WireStatus::Cancelled);
}

#[tokio::test]
async fn a_task_whose_replica_stopped_beating_reads_as_failed_with_what_it_left() {
    let (runtime, clock) = runtime();
    let running = Running::default();
    let task = started(&runtime, &running, None).await;
    let id = task.handle.task.task_id.clone();
    clock.advance_ms(4_000);
    let alive = get(&runtime, None, &id).await.unwrap();
    assert_eq!(alive.task.status(), WireStatus::Working);
    clock.advance_ms(1_000);
    let lost = get(&runtime, None, &id).await.unwrap();
    assert_eq!(lost.task.status(), WireStatus::Failed);
    let said = lost.task.task.status_message.unwrap_or_default();
    assert!(said.contains("it changed nothing"), "{said}");
    // A lost task's account stands: a cancel does not turn it into "cancelled".
    cancel(&runtime, &running, None, &id).await.unwrap();
    let still = get(&runtime, None, &id).await.unwrap();
    assert_eq!(still.task.status(), WireStatus::Failed);
}

#[tokio::test]
async fn an_answer_a_task_cannot_carry_fails_it_and_a_result_completes_it() {
    let (runtime, _) = runtime();
    let running = Running::default();
    let asked = started(&runtime, &running, None).await;
    let asked_id = asked.handle.task.task_id.clone();
    let input = rmcp::model::InputRequiredResult::from_request_state("pending");
    asked
        .keeper
        .settle(CallToolResponse::InputRequired(input))
        .await;
    let failed = get(&runtime, None, &asked_id).await.unwrap();
    assert_eq!(failed.task.status(), WireStatus::Failed);

    let done = started(&runtime, &running, None).await;
    let done_id = done.handle.task.task_id.clone();
    let result = rmcp::model::CallToolResult::structured(json!({"exported": 3}));
    done.keeper.settle(CallToolResponse::Complete(result)).await;
    let completed = get(&runtime, None, &done_id).await.unwrap();
    match completed.task.payload {
        TaskPayload::Completed { result } => {
            assert_eq!(result["structuredContent"]["exported"], 3)
        }
        other => panic!("not completed: {other:?}"),
    }
}

#[tokio::test]
async fn a_caller_past_its_task_limits_is_refused_while_another_is_served() {
    let (runtime, _) = runtime();
    let running = Running::with_limits(TaskLimits {
        per_session: 2,
        per_caller: 3,
    });
    let alice = Caller::new("https://auth.example.com", "alice");
    let bob = Caller::new("https://auth.example.com", "bob");
    let begin = |caller: &Caller, session: &'static str| {
        let caller = caller.clone();
        let (runtime, running) = (runtime.clone(), running.clone());
        async move {
            start(
                &runtime,
                &running,
                "t_export",
                false,
                &json!({}),
                Some(&caller),
                Some(session),
                HOUR,
            )
            .await
        }
    };
    let busy = |outcome: Result<Started, NotStarted>| match outcome {
        Err(NotStarted::Busy(e)) => e,
        Err(NotStarted::Store(e)) => panic!("store: {e}"),
        Ok(_) => panic!("started past the limit"),
    };
    let first = begin(&alice, "s1")
        .await
        .unwrap_or_else(|_| panic!("first"));
    let _second = begin(&alice, "s1")
        .await
        .unwrap_or_else(|_| panic!("second"));
    // The session's limit: its third task is refused, retryably, and nothing was made.
    let e = busy(begin(&alice, "s1").await);
    assert_eq!((e.code.as_ref(), e.retryable), ("rate_limited", true));
    assert!(
        e.message.contains("this session already runs 2 tasks"),
        "{}",
        e.message
    );
    assert!(e.message.starts_with("Nothing was done"), "{}", e.message);
    // The caller's limit, over all their sessions.
    let _third = begin(&alice, "s2")
        .await
        .unwrap_or_else(|_| panic!("third"));
    let e = busy(begin(&alice, "s3").await);
    assert!(
        e.message.contains("this caller already runs 3 tasks"),
        "{}",
        e.message
    );
    // Another caller is served meanwhile.
    let theirs = begin(&bob, "s4").await.unwrap_or_else(|_| panic!("bob's"));
    let shown = get(&runtime, Some(&bob), &theirs.handle.task.task_id)
        .await
        .unwrap();
    assert_eq!(shown.task.status(), WireStatus::Working);
    // A task that ends gives its place back.
    first
        .keeper
        .settle(CallToolResponse::Complete(
            rmcp::model::CallToolResult::success(vec![]),
        ))
        .await;
    assert!(begin(&alice, "s3").await.is_ok(), "a place was given back");
    // The counts hold only what runs.
    assert_eq!(running.lock().by_id.len(), 4);
}
