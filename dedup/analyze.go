package dedup

// analysis is what a worker learns of a response for near-duplicate matching.
type analysis struct{}

// analyzer is one worker's state; it is not shared between goroutines.
type analyzer struct{}

func (d *Deduper) newAnalyzer() *analyzer { return &analyzer{} }

// needsAnalysis says whether a record goes to the workers.
func (d *Deduper) needsAnalysis(it *item) bool { return false }

// keepBody is how many payload bytes the reader keeps for analysis.
func (d *Deduper) keepBody() int { return 0 }

func (a *analyzer) analyze(it *item) {}
