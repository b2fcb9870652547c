//! Task records on every store kind: a task is found by its id until its time is up, a
//! beat keeps it working and its message, a settle ends it once (the first ending stands:
//! a cancel is not overwritten by the call's late result), a beat reports a cancel made
//! elsewhere, and a purge forgets tasks past their time.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::json;
use toolspec_runtime::task::{TaskRecord, TaskStatus};

const HOUR: Duration = Duration::from_secs(3600);

#[tokio::test]
async fn every_store_keeps_tasks_as_the_runtime_reads_them() {
    for kind in kinds() {
        let (rt, clock, _dir) = runtime(kind);
        let store = rt.store();
        let now = rt.now_ms();
        let mut record = TaskRecord::working("task_a@caller".into(), "t_export", now, HOUR);
        record.writes = true;
        record.idempotency_key = Some("k-1".into());
        store.task_create(&record).await.unwrap();
        assert!(
            store.task_create(&record).await.is_err(),
            "{kind:?}: an id is made once"
        );
        let found = store.task_get(&record.id, now).await.unwrap();
        assert_eq!(
            found.as_ref(),
            Some(&record),
            "{kind:?}: read back as written"
        );
        assert_eq!(
            store.task_get("task_a", now).await.unwrap(),
            None,
            "{kind:?}"
        );

        clock.advance_ms(1_000);
        let beat = store
            .task_beat(&record.id, rt.now_ms(), Some("3 of 9 done"))
            .await
            .unwrap();
        assert_eq!(beat, Some(TaskStatus::Working), "{kind:?}");
        let beaten = store
            .task_get(&record.id, rt.now_ms())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(beaten.beat_ms, rt.now_ms(), "{kind:?}");
        assert_eq!(
            beaten.updated_ms,
            rt.now_ms(),
            "{kind:?}: a new message updates"
        );
        assert_eq!(beaten.message.as_deref(), Some("3 of 9 done"), "{kind:?}");
        clock.advance_ms(1_000);
        store
            .task_beat(&record.id, rt.now_ms(), None)
            .await
            .unwrap();
        let quiet = store
            .task_get(&record.id, rt.now_ms())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            quiet.message.as_deref(),
            Some("3 of 9 done"),
            "{kind:?}: kept"
        );
        assert_eq!(
            quiet.updated_ms, beaten.updated_ms,
            "{kind:?}: a beat alone is no update"
        );

        // Cancelled (by tasks/cancel, on any replica): the runner's beat hears it, and the
        // call's late result does not overwrite it.
        let cancelled = store
            .task_settle(&record.id, TaskStatus::Cancelled, None, rt.now_ms())
            .await
            .unwrap();
        assert!(cancelled, "{kind:?}");
        let heard = store
            .task_beat(&record.id, rt.now_ms(), None)
            .await
            .unwrap();
        assert_eq!(heard, Some(TaskStatus::Cancelled), "{kind:?}");
        let late = json!({"content": [], "structuredContent": {"exported": 1}});
        let overwritten = store
            .task_settle(&record.id, TaskStatus::Completed, Some(&late), rt.now_ms())
            .await
            .unwrap();
        assert!(!overwritten, "{kind:?}: the first ending stands");
        let ended = store
            .task_get(&record.id, rt.now_ms())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(ended.status, TaskStatus::Cancelled, "{kind:?}");
        assert_eq!(ended.outcome, None, "{kind:?}");
        assert_eq!(
            store
                .task_beat("task_unknown", rt.now_ms(), None)
                .await
                .unwrap(),
            None,
            "{kind:?}"
        );

        // Completed with its result, kept for its time, then forgotten.
        let done = TaskRecord::working("task_b".into(), "t_export", rt.now_ms(), HOUR);
        store.task_create(&done).await.unwrap();
        assert!(
            store
                .task_settle(&done.id, TaskStatus::Completed, Some(&late), rt.now_ms())
                .await
                .unwrap()
        );
        let kept = store
            .task_get(&done.id, rt.now_ms())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(kept.outcome, Some(late.clone()), "{kind:?}");
        clock.advance_ms(3_600_000);
        assert_eq!(
            store.task_get(&done.id, rt.now_ms()).await.unwrap(),
            None,
            "{kind:?}: past its time it is gone"
        );
        let purged = store.purge_tasks(rt.now_ms()).await.unwrap();
        assert_eq!(purged.tasks, 2, "{kind:?}");
    }
}
