// The result a "send test event" delivery carries: a valid ScoreResultV1 that says plainly it is a
// test, so a receiver that stores it by mistake shows where it came from.

export function sampleScore() {
  return {
    schemaVersion: 1,
    score: 72,
    dimensions: [
      { name: 'must_haves', score: 80, evidence: 'Test event: sample evidence, no candidate was scored.' },
      { name: 'experience', score: 60, evidence: 'Test event: sample evidence, no candidate was scored.' },
    ],
    rationale: 'Test event sent from the sandbox console or control API; it belongs to no screening request.',
    confidence: 0.5,
    modelId: 'sandbox-test-event',
    promptVersion: 'test',
  };
}
