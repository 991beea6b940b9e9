package chromium

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Headed reports whether the tests run Chromium headed (GASOLINE_HEADED=1),
// on an Xvfb display of its own, as a person sees it: window focus, tab
// groups and background tabs behave as in a desktop browser.
func Headed() bool { return os.Getenv("GASOLINE_HEADED") == "1" }

// ErrNoXvfb means a headed run was asked for and Xvfb is missing.
var ErrNoXvfb = errors.New("GASOLINE_HEADED=1 needs Xvfb: install it (apt-get install xvfb)")

// xvfb is one virtual X display, started for one browser.
type xvfb struct {
	cmd     *exec.Cmd
	display string // ":N"
	exited  chan struct{}
}

// startXvfb starts Xvfb on a free display (it picks the number itself and
// writes it to -displayfd once it accepts connections), listening on no
// TCP port, in a process group of its own.
func startXvfb() (*xvfb, error) {
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		return nil, ErrNoXvfb
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command(bin, "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting Xvfb: %w", err)
	}
	w.Close()
	x := &xvfb{cmd: cmd, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(x.exited)
	}()
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if _, err := strconv.Atoi(n); err != nil {
			x.stop()
			return nil, fmt.Errorf("Xvfb did not report a display number (got %q)", n)
		}
		x.display = ":" + n
		return x, nil
	case <-time.After(15 * time.Second):
		x.stop()
		return nil, errors.New("Xvfb did not open a display within 15 s")
	}
}

// stop ends Xvfb (SIGTERM, then SIGKILL after 5 s) and waits for it. It
// may be called more than once.
func (x *xvfb) stop() {
	syscall.Kill(-x.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-x.exited:
		return
	case <-time.After(5 * time.Second):
	}
	syscall.Kill(-x.cmd.Process.Pid, syscall.SIGKILL)
	<-x.exited
}
