package features

import "testing"

// TestDiscussionURL: the URLs of forum threads on the platforms' own
// conventions are discussions; a news story's, a shop's and a blog's are not.
func TestDiscussionURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://forums.raspberrypi.com/viewtopic.php?t=361697", true},
		{"https://www.webhostingtalk.com/showthread.php?t=1930933", true},
		{"https://www.spigotmc.org/threads/best-minecraft-server-hosts.691400/", true},
		{"https://community.home-assistant.io/t/start-making-my-home-smart/6891", true},
		{"https://forum.polkaudio.com/discussion/181290/advice", true},
		{"https://steamcommunity.com/discussions/forum/11/597414091753090447/", true},
		{"https://www.tripadvisor.com/ShowTopic-g294232-i525-k15476375-Tips.html", true},
		{"https://www.rivianforums.com/forum/threads/ev-home-charging.32036/", true},
		{"https://www.bbc.com/news/world-asia-china-39483148", false},
		{"https://www.rei.com/product/227955/rei-co-op-trail-25-pack", false},
		{"https://example.com/blog/2024/03/the-best-tents/", false},
		{"", false},
	} {
		if got := discussionURL(tc.url); got != tc.want {
			t.Errorf("discussionURL(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}
