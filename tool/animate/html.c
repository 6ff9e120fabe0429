/* tool/animate/html.c - the page of `tiledblas animate --html`: one inline SVG
 * per kernel (svg.c, played once, driven by the page), each kernel's schedule
 * as JSON, and a small inline script for play, pause, step, the phase counter
 * and the kernel chooser. Self-contained: no network, no external files. */
#include "animate.h"

#include <stdio.h>
#include <string.h>

static void tb_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            fprintf(f, "\\u%04x", c);      /* also keeps "</script>" out */
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void tb_html_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* The schedule of one view, for the counter and for jumping by phase. */
static void tb_json_view(FILE *f, const tb_anim_view *v)
{
    const tb_anim_sched *s = &v->s;
    const tb_anim_geom *g = &s->g;
    long ap, bp, cs;
    tb_anim_padding(s, &ap, &bp, &cs);
    fprintf(f, "{\"name\":");
    tb_json_str(f, g->name);
    fprintf(f, ",\"summary\":");
    tb_json_str(f, g->summary);
    fprintf(f, ",\"m\":%ld,\"n\":%ld,\"k\":%ld,\"grid\":[%ld,%ld],\"phases\":%ld,"
               "\"block\":[%ld,%ld],\"thread\":[%ld,%ld],\"block_tile\":[%d,%d,%d],"
               "\"warp_tile\":[%d,%d],\"micro_tile\":[%d,%d],\"threads\":%d,"
               "\"zeros\":{\"As\":%ld,\"Bs\":%ld,\"C_outside\":%ld},\"total\":%.3f,\"steps\":[",
            s->m, s->n, s->k, s->grid_x, s->grid_y, s->phases, v->bx, v->by, v->ty, v->tx,
            g->block_m, g->block_n, g->block_k, g->warp_m, g->warp_n, g->thread_m, g->thread_n,
            g->threads, ap, bp, cs, v->total);
    for (int i = 0; i < v->nsteps; i++) {
        const tb_anim_step *st = &v->steps[i];
        fprintf(f, "%s{\"t0\":%.3f,\"dur\":%.3f,\"kind\":", i ? "," : "", st->t0, st->dur);
        tb_json_str(f, tb_anim_step_name(st->kind));
        fprintf(f, ",\"phase\":%ld,\"label\":", st->phase);
        tb_json_str(f, st->label);
        fputc('}', f);
    }
    fprintf(f, "]}");
}

static const char tb_css[] =
    "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;margin:0;background:#fafbfc;color:#1d2330}\n"
    "#bar{position:sticky;top:0;z-index:2;display:flex;gap:8px;align-items:center;flex-wrap:wrap;"
    "padding:8px 14px;background:#eef1f6;border-bottom:1px solid #cfd5de}\n"
    "#bar button{font-size:14px;padding:4px 10px;border:1px solid #9aa5b5;border-radius:5px;background:white;cursor:pointer}\n"
    "#bar button:hover{background:#e3e9f3}\n"
    "#bar select{font-size:14px;padding:3px}\n"
    "#counter{font-size:14px;font-weight:bold;color:#0b3d91;min-width:22em}\n"
    "#note{font-size:13px;color:#5b6473;padding:4px 14px}\n"
    ".cpu{background:#fff4e5;border:2px solid #e07b00;padding:8px 14px;margin:8px 14px;font-weight:bold}\n"
    ".view{padding:0 6px}.view svg{max-width:100%;height:auto;display:block}\n";

/* The page's script: one SVG time line per kernel, stepped by seeking it. */
static const char tb_js[] =
    "(function(){\n"
    "var K=TB.kernels,cur=TB.first,playing=false,raf=0;\n"
    "var views=document.querySelectorAll('.view');\n"
    "function svg(){return views[cur].querySelector('svg');}\n"
    "function stepAt(t){var s=K[cur].steps;for(var i=s.length-1;i>=0;i--)if(t>=s[i].t0-1e-6)return i;return 0;}\n"
    "function still(i){var s=K[cur].steps[i];return s.t0+s.dur-0.05;}\n"
    "function counter(t){var k=K[cur],i=stepAt(t),s=k.steps[i];\n"
    "  var ph=s.phase>=0?(' \\u00b7 phase '+s.phase+' of '+k.phases):'';\n"
    "  document.getElementById('counter').textContent='step '+(i+1)+' of '+k.steps.length+ph+' \\u00b7 '+s.kind;\n"
    "  document.getElementById('play').textContent=playing?'\\u275a\\u275a pause':'\\u25b6 play';\n"
    "  document.body.setAttribute('data-step',i+1);}\n"
    "function seek(t){var e=svg();e.pauseAnimations();e.setCurrentTime(t);counter(t);}\n"
    "function go(i){var n=K[cur].steps.length;i=Math.max(0,Math.min(n-1,i));stop();seek(still(i));}\n"
    "function tick(){if(!playing)return;var e=svg(),t=e.getCurrentTime();\n"
    "  if(t>=K[cur].total){e.setCurrentTime(0);t=0;}counter(t);raf=requestAnimationFrame(tick);}\n"
    "function play(){var e=svg();playing=true;if(e.getCurrentTime()>=K[cur].total-0.06)e.setCurrentTime(0);\n"
    "  e.unpauseAnimations();cancelAnimationFrame(raf);raf=requestAnimationFrame(tick);}\n"
    "function stop(){playing=false;cancelAnimationFrame(raf);svg().pauseAnimations();counter(svg().getCurrentTime());}\n"
    "function show(k,i){stop();cur=k;for(var j=0;j<views.length;j++){views[j].style.display=j==k?'':'none';\n"
    "  views[j].querySelector('svg').pauseAnimations();}\n"
    "  document.getElementById('kernel').value=String(k);go(i);}\n"
    "function phaseStep(p){var s=K[cur].steps;for(var i=0;i<s.length;i++)if(s[i].kind=='compute'&&s[i].phase==p)return i;\n"
    "  for(i=0;i<s.length;i++)if(s[i].kind=='more phases')return i;return 0;}\n"
    "function fromHash(){var h=location.hash.replace(/^#/,''),o={};h.split('&').forEach(function(kv){\n"
    "  var a=kv.split('=');if(a[0])o[a[0]]=decodeURIComponent(a[1]||'');});\n"
    "  if(o.kernel!==undefined)for(var j=0;j<K.length;j++)if(K[j].name==o.kernel){cur=j;}\n"
    "  var i=0;if(o.step!==undefined)i=parseInt(o.step,10)-1;else if(o.phase!==undefined)i=phaseStep(parseInt(o.phase,10));\n"
    "  show(cur,i);if(o.step===undefined&&o.phase===undefined){seek(0);play();}}\n"
    "document.getElementById('play').onclick=function(){playing?stop():play();};\n"
    "document.getElementById('prev').onclick=function(){go(stepAt(svg().getCurrentTime()-0.01)-(playing?0:1));};\n"
    "document.getElementById('next').onclick=function(){go(stepAt(svg().getCurrentTime())+1);};\n"
    "document.getElementById('restart').onclick=function(){go(0);};\n"
    "document.getElementById('kernel').onchange=function(){var i=stepAt(svg().getCurrentTime()),s=K[cur].steps[i],k=+this.value,j,n=0;\n"
    "  for(j=0;j<K[k].steps.length;j++)if(K[k].steps[j].kind==s.kind&&K[k].steps[j].phase==s.phase){n=j;break;}\n"
    "  show(k,n);};\n"
    "document.addEventListener('keydown',function(e){if(e.target.tagName=='SELECT')return;\n"
    "  if(e.key=='ArrowRight')document.getElementById('next').click();else if(e.key=='ArrowLeft')document.getElementById('prev').click();\n"
    "  else if(e.key==' '){e.preventDefault();document.getElementById('play').click();}});\n"
    "window.addEventListener('hashchange',fromHash);\n"
    "window.addEventListener('load',fromHash);\n"
    "})();\n";

int tb_anim_write_html(FILE *f, const tb_anim_view *views, int nviews, int first)
{
    const tb_anim_view *v0 = &views[first];
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<title>tiledblas animate: %ld x %ld x %ld</title>\n<style>\n%s</style>\n</head>\n<body>\n",
            v0->s.m, v0->s.n, v0->s.k, tb_css);
    fprintf(f, "<div id=\"bar\"><button id=\"prev\" title=\"step back (left arrow)\">&#9664; step</button>"
               "<button id=\"play\" title=\"play / pause (space)\">&#9654; play</button>"
               "<button id=\"next\" title=\"step forward (right arrow)\">step &#9654;</button>"
               "<button id=\"restart\" title=\"back to the first step\">&#8634; restart</button>"
               "<label>kernel <select id=\"kernel\">");
    for (int i = 0; i < nviews; i++) {
        const tb_anim_geom *g = &views[i].s.g;
        fprintf(f, "<option value=\"%d\"%s>", i, i == first ? " selected" : "");
        tb_html_escape(f, g->name);
        fprintf(f, " (%dx%d tile, k step %d)</option>", g->block_m, g->block_n, g->block_k);
    }
    fprintf(f, "</select></label><span id=\"counter\">step 1</span></div>\n");
    if (v0->call && strcmp(v0->call->route, "gpu") != 0) {
        fprintf(f, "<div class=\"cpu\">This call ran on the CPU, not the GPU: ");
        tb_html_escape(f, v0->call->reason[0] ? v0->call->reason : "no reason recorded");
        fprintf(f, ".</div>\n");
    }
    fprintf(f, "<div id=\"note\">Each thread block owns one tile of C (purple). Phase by phase it copies a tile "
               "of A's row panel (blue) and of B's column panel (orange) into shared memory, waits at barrier 1, "
               "lets every thread combine its row of As with its column of Bs (red), and waits at barrier 2. "
               "Hatched cells are zeros loaded past a ragged edge. Keys: &larr; &rarr; step, space play/pause; "
               "URL: #step=N, #phase=P, #kernel=NAME.</div>\n");
    for (int i = 0; i < nviews; i++) {
        char idp[16];
        snprintf(idp, sizeof idp, "k%d_", i);
        fprintf(f, "<div class=\"view\" data-kernel=\"%d\"%s>\n", i, i == first ? "" : " style=\"display:none\"");
        if (tb_anim_write_svg(f, &views[i], 0, idp) != 0)
            return -1;
        fprintf(f, "</div>\n");
    }
    fprintf(f, "<script>\nvar TB={\"first\":%d,\"kernels\":[", first);
    for (int i = 0; i < nviews; i++) {
        if (i)
            fputc(',', f);
        tb_json_view(f, &views[i]);
    }
    fprintf(f, "]};\n%s</script>\n</body>\n</html>\n", tb_js);
    return ferror(f) ? -1 : 0;
}
