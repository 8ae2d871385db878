// Command startup measures how long the provider takes from process start
// to a served schema, the way Terraform starts it: exec with the plugin
// handshake environment, read the handshake line, then call
// GetProviderSchema over gRPC. It prints the median of -n runs in ms.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Terraform's plugin handshake cookie (public, fixed by terraform-plugin-go).
const magicCookie = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"

func main() {
	bin := flag.String("provider", "bin/terraform-provider-mobileplan", "provider binary")
	runs := flag.Int("n", 20, "runs")
	flag.Parse()
	var handshake, schema []float64
	for range *runs {
		h, s, err := once(*bin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "startup:", err)
			os.Exit(1)
		}
		handshake = append(handshake, h)
		schema = append(schema, s)
	}
	fmt.Printf("handshake_ms=%.1f schema_ms=%.1f runs=%d\n", median(handshake), median(schema), *runs)
}

func once(bin string) (handshakeMs, schemaMs float64, err error) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "TF_PLUGIN_MAGIC_COOKIE="+magicCookie, "PLUGIN_PROTOCOL_VERSIONS=6")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return 0, 0, fmt.Errorf("reading the handshake: %w", err)
	}
	handshake := time.Since(start)
	// core-version|protocol-version|network|address|protocol
	parts := strings.Split(strings.TrimSpace(line), "|")
	if len(parts) < 5 || parts[4] != "grpc" {
		return 0, 0, fmt.Errorf("unexpected handshake %q", line)
	}
	conn, err := grpc.NewClient(parts[2]+":"+parts[3], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The request message has no fields, and the reply is kept as unknown
	// fields of Empty: enough to know the schema was served in full.
	reply := &emptypb.Empty{}
	if err := conn.Invoke(ctx, "/tfplugin6.Provider/GetProviderSchema", &emptypb.Empty{}, reply); err != nil {
		return 0, 0, err
	}
	if len(reply.ProtoReflect().GetUnknown()) == 0 {
		return 0, 0, fmt.Errorf("empty schema reply")
	}
	return ms(handshake), ms(time.Since(start)), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}
