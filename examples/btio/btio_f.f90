! btio_f: the Fortran version of btio.c, a BT-IO-like kernel (the I/O of
! the NAS Parallel Benchmarks' BT in its "full" MPI-IO subtype).
!
! The solution u(5, N, N, N) (5 double components per cell, x fastest) is
! decomposed over a square number of ranks P = q x q: every rank owns a
! pencil with the full x extent and 1/q of y and of z (the first mod(N, q)
! ranks along a direction get one more plane). Every step each rank fills
! its pencil with values that depend only on (step, global cell, component)
! and writes it to <prefix>.out through a subarray file view
! (MPI_Type_create_subarray, Fortran order, over the N x N x N array of
! 5-double elements) whose displacement is step * N**3 * 5 * 8 bytes, with
! MPI_File_write_all (-i: MPI_File_write). Then every step is read back
! through the same views (MPI_File_read_all / MPI_File_read) and checked.
! The file is byte for byte the one btio.c writes for the same N and steps.
! It uses include 'mpif.h', so it links with the Fortran 77 bindings of
! both MPICH and Open MPI.
!
! usage: btio_f [-n N=24] [-s steps=5] [-i] [-o prefix=btio]
! Needs a square number of ranks (1, 4, 9, 16, ...); exits 2 otherwise.
program btio_f
    implicit none
    include 'mpif.h'
    integer, parameter :: ncomp = 5
    integer :: ierr, rank, nprocs, q, n, nsteps, s, i, j, k, c, narg
    integer :: cy, cz, ys, ly, zs, lz, elem, filetype, fh
    integer :: sizes(3), subsizes(3), starts(3), st(MPI_STATUS_SIZE)
    integer(kind=MPI_OFFSET_KIND) :: step_bytes, disp
    integer(kind=8) :: nbad(1), totbad(1)
    logical :: indep
    character(len=1024) :: arg, prefix, fname
    character(len=16) :: mode, verdict
    double precision :: t0, t1, t2, mib
    double precision, allocatable :: u(:, :, :, :)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

    n = 24
    nsteps = 5
    indep = .false.
    prefix = 'btio'
    narg = command_argument_count()
    i = 1
    do while (i <= narg)
        call get_command_argument(i, arg)
        if ((arg == '-n' .or. arg == '-s' .or. arg == '-o') .and. i < narg) then
            call get_command_argument(i + 1, fname)
            if (arg == '-n') then
                read (fname, *, iostat=ierr) n
                if (ierr /= 0) call usage()
            else if (arg == '-s') then
                read (fname, *, iostat=ierr) nsteps
                if (ierr /= 0) call usage()
            else
                prefix = fname
            end if
            i = i + 2
        else if (arg == '-i') then
            indep = .true.
            i = i + 1
        else
            call usage()
        end if
    end do

    q = 0
    do while ((q + 1) * (q + 1) <= nprocs)
        q = q + 1
    end do
    if (q * q /= nprocs) then
        if (rank == 0) write (0, '(a)') 'btio: the number of ranks must be a square (1, 4, 9, 16, ...)'
        call MPI_Finalize(ierr)
        stop 2, quiet=.true.
    end if
    if (n < q .or. nsteps <= 0) call usage()

    ! this rank's pencil: all of x, y planes ys+1..ys+ly, z planes zs+1..zs+lz
    cy = mod(rank, q)
    cz = rank / q
    call split(n, q, cy, ys, ly)
    call split(n, q, cz, zs, lz)

    call MPI_Type_contiguous(ncomp, MPI_DOUBLE_PRECISION, elem, ierr)
    call MPI_Type_commit(elem, ierr)
    sizes = (/ n, n, n /)
    subsizes = (/ n, ly, lz /)
    starts = (/ 0, ys, zs /)
    call MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, elem, filetype, ierr)
    call MPI_Type_commit(filetype, ierr)
    step_bytes = int(n, MPI_OFFSET_KIND) * n * n * ncomp * 8

    fname = trim(prefix) // '.out'
    allocate (u(ncomp, n, ly, lz))

    ! write: one step after the other, appended to the file
    if (rank == 0) call MPI_File_delete(trim(fname), MPI_INFO_NULL, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = MPI_Wtime()
    call MPI_File_open(MPI_COMM_WORLD, trim(fname), ior(MPI_MODE_CREATE, MPI_MODE_WRONLY), MPI_INFO_NULL, fh, ierr)
    if (ierr /= MPI_SUCCESS) then
        write (0, '(a)') 'btio_f: cannot create ' // trim(fname)
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    do s = 0, nsteps - 1
        do k = 1, lz
            do j = 1, ly
                do i = 1, n
                    do c = 1, ncomp
                        u(c, i, j, k) = val(s, c - 1, i - 1, ys + j - 1, zs + k - 1)
                    end do
                end do
            end do
        end do
        disp = s * step_bytes
        call MPI_File_set_view(fh, disp, elem, filetype, 'native', MPI_INFO_NULL, ierr)
        if (indep) then
            call MPI_File_write(fh, u, n * ly * lz, elem, st, ierr)
        else
            call MPI_File_write_all(fh, u, n * ly * lz, elem, st, ierr)
        end if
    end do
    call MPI_File_close(fh, ierr)
    t1 = MPI_Wtime()

    ! read back and verify
    nbad(1) = 0
    call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
    if (ierr /= MPI_SUCCESS) then
        write (0, '(a)') 'btio_f: cannot open ' // trim(fname)
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    ! The write loop's twin on purpose, as in btio.c: the same view per step,
    ! then the transfer the other way (BT-IO's read-back and verify).
    do s = 0, nsteps - 1
        u = 0.0d0
        disp = s * step_bytes
        call MPI_File_set_view(fh, disp, elem, filetype, 'native', MPI_INFO_NULL, ierr)
        if (indep) then
            call MPI_File_read(fh, u, n * ly * lz, elem, st, ierr)
        else
            call MPI_File_read_all(fh, u, n * ly * lz, elem, st, ierr)
        end if
        do k = 1, lz
            do j = 1, ly
                do i = 1, n
                    do c = 1, ncomp
                        ! compare the bits: the values must be exactly those written
                        if (transfer(u(c, i, j, k), 0_8) /= transfer(val(s, c - 1, i - 1, ys + j - 1, zs + k - 1), 0_8)) &
                            nbad(1) = nbad(1) + 1
                    end do
                end do
            end do
        end do
    end do
    call MPI_File_close(fh, ierr)
    t2 = MPI_Wtime()
    call MPI_Allreduce(nbad, totbad, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)

    if (rank == 0) then
        mib = dble(step_bytes) * nsteps / 1048576.0d0
        if (indep) then
            mode = 'independent'
        else
            mode = 'collective'
        end if
        if (totbad(1) == 0) then
            verdict = 'SUCCESSFUL'
        else
            verdict = 'FAILED'
        end if
        write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,a,a,a,a,a,a,a,a,a,a,i0,a)') &
            'btio_f: ', nprocs, ' ranks (', q, 'x', q, '), ', n, '^3 cells x ', ncomp, ' doubles, ', nsteps, &
            ' steps, ', trim(mode), ': wrote ', fixed(mib, 2), ' MiB in ', fixed(t1 - t0, 3), ' s, read in ', &
            fixed(t2 - t1, 3), ' s, verification ', trim(verdict), ' (', totbad(1), ' bad values)'
    end if
    deallocate (u)
    call MPI_Type_free(filetype, ierr)
    call MPI_Type_free(elem, ierr)
    call MPI_Finalize(ierr)
    if (totbad(1) /= 0) stop 3, quiet=.true.

contains

    subroutine usage()
        integer :: e
        if (rank == 0) write (0, '(a)') 'usage: btio_f [-n N] [-s steps] [-i] [-o prefix]'
        call MPI_Abort(MPI_COMM_WORLD, 2, e)
    end subroutine usage

    subroutine split(m, parts, p, lo, length)
        integer, intent(in) :: m, parts, p
        integer, intent(out) :: lo, length
        lo = p * (m / parts) + min(p, mod(m, parts))
        length = m / parts
        if (p < mod(m, parts)) length = length + 1
    end subroutine split

    ! x with d decimals and no leading blanks, as C's %.*f prints it
    function fixed(x, d) result(str)
        double precision, intent(in) :: x
        integer, intent(in) :: d
        character(len=:), allocatable :: str
        character(len=32) :: buf, fmt
        write (fmt, '(a,i0,a)') '(f32.', d, ')'
        write (buf, fmt) x
        str = trim(adjustl(buf))
    end function fixed

    ! The value of component cc of global cell (x, y, z) at step st0 (all
    ! 0-based): an exact binary fraction, the same as btio.c computes.
    double precision function val(st0, cc, x, y, z)
        integer, intent(in) :: st0, cc, x, y, z
        integer(kind=8) :: m
        m = n
        val = dble((((int(st0, 8) * ncomp + cc) * m + z) * m + y) * m + x) * 0.25d0 + 1.0d0
    end function val

end program btio_f
