package web

import "github.com/notch-web/notch-web/web/fanout"

// ConnContext is the http.Server's ConnContext hook the streams need
// (web/fanout).
var ConnContext = fanout.ConnContext
