package dedup

import (
	"fmt"
	"strings"
	"testing"
)

// TestTemplateMainText: a site whose main text is its template, the same at
// every URL (a category's blurb where the story was not found). Its pages
// are near duplicates of its first page; replaced, they still count in the
// site's frame, so once the template is on four of its URLs it is frame and
// later pages are kept: three pages replaced, not every page after the
// first.
func TestTemplateMainText(t *testing.T) {
	blurb := `<p>Our collection of training shirts combines performance fabric with a modern fit, so that you can focus on the workout and keep moving without restriction. Whatever your chosen sport, from the gym floor to the running track, there is a shirt in the range that will keep you cool and comfortable all year round, and every one of them is made to last through the hardest sessions you can give it.</p>`
	nav := strings.Repeat(`<a href="/collections/all">All collections</a> `, 20)
	var pages []page
	for i := range 8 {
		pages = append(pages, page{id: fmt.Sprintf("p%d", i), url: fmt.Sprintf("https://shop.example/collections/story-%d", i),
			body: fmt.Sprintf(`<html><head><title>Story %d</title></head><body><nav>%s</nav><main>%s</main></body></html>`, i, nav, blurb)})
	}
	found, st, _ := nearFoundSims(t, DefaultOptions(), pages)
	want := []int{-1, 0, 0, 0, -1, -1, -1, -1}
	for i := range found {
		if found[i] != want[i] {
			t.Errorf("page %d found as a copy of %d, want %d (all: %v)", i, found[i], want[i], found)
			break
		}
	}
	if st.NearRevisits != 3 {
		t.Errorf("%d near revisits, want 3", st.NearRevisits)
	}
}
